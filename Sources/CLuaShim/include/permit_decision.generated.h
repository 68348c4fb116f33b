/* Generated from ContextSchema (Sources/PermitLua/Context/ContextSchema.swift) by `make generate`
   (Tools/permit-generate); do not edit. The repository's tests fail while it differs.

   The codes of a decision's fields and actions, shared by the in-place reader (FastPath.c, whose
   tables are in decision_fields.generated.h) and the Swift side that reads the values it pushes
   (FastPath.swift); included by permit_context.h. */
#ifndef PERMIT_DECISION_GENERATED_H
#define PERMIT_DECISION_GENERATED_H

/* The fields of a decision table, in the order permit_decision_fields pushes them: the fields
   every action takes, then each action's further fields in action order. */
enum {
    PERMIT_D_ACTION,
    PERMIT_D_REASON,
    PERMIT_D_REMEMBER,
    PERMIT_D_CANCEL_REMINDERS,
    PERMIT_D_REMOTE_REGISTRATION,
    PERMIT_D_CAP_EXEMPT,
    PERMIT_D_NOTIFY,
    PERMIT_D_ROW,
    PERMIT_D_TITLE,
    PERMIT_D_MESSAGE,
    PERMIT_D_ACCEPT,
    PERMIT_D_DECLINE,
    PERMIT_D_PRESENTATION,
    PERMIT_D_VARIANT,
    PERMIT_D_ID,
    PERMIT_D_LINK,
    PERMIT_D_URL,
    PERMIT_D_OPTIONS,
    PERMIT_D_OPEN,
    PERMIT_D_CANCEL,
    PERMIT_D_DEEP_LINK,
    PERMIT_D_FOR_SETTING,
    PERMIT_D_ROWS,
    PERMIT_D_BUTTON,
    PERMIT_D_COUNT
};

/* The actions, as permit_decision_fields answers them (bits 24 and up). */
enum {
    PERMIT_A_NONE,
    PERMIT_A_SOFT_PROMPT,
    PERMIT_A_REQUEST_PERMISSION,
    PERMIT_A_SETTINGS_PROMPT,
    PERMIT_A_OPEN_SETTINGS,
    PERMIT_A_INFORM,
    PERMIT_A_DISMISS,
    PERMIT_A_COUNT
};

#endif
