/* Generated from ContextSchema (Sources/PermitLua/Context/ContextSchema.swift) by `make generate`
   (Tools/permit-generate); do not edit. The repository's tests fail while it differs.

   The in-place decision reader's tables (FastPath.c), DecisionReader's names: the fields a
   decision may hold (by PERMIT_D_* code), the actions (by PERMIT_A_* code), and the fields each
   action allows (bit n: PERMIT_D_* code n). */
#ifndef PERMIT_DECISION_FIELDS_GENERATED_H
#define PERMIT_DECISION_FIELDS_GENERATED_H

#include "permit_context.h"

static const char *const decision_names[PERMIT_D_COUNT] = {
    "action",
    "reason",
    "remember",
    "cancel_reminders",
    "remote_registration",
    "title",
    "message",
    "accept",
    "decline",
    "presentation",
    "variant",
    "options",
    "open",
    "cancel",
    "deep_link",
};

static const char *const action_names[PERMIT_A_COUNT] = {
    "none",
    "soft_prompt",
    "request_permission",
    "settings_prompt",
    "open_settings",
};

static const unsigned allowed_fields[PERMIT_A_COUNT] = {
    0x1fu, /* none: action, reason, remember, cancel_reminders, remote_registration */
    0x7ffu, /* soft_prompt: action, reason, remember, cancel_reminders, remote_registration, title, message, accept, decline, presentation, variant */
    0x81fu, /* request_permission: action, reason, remember, cancel_reminders, remote_registration, options */
    0x727fu, /* settings_prompt: action, reason, remember, cancel_reminders, remote_registration, title, message, open, cancel, presentation, deep_link */
    0x401fu, /* open_settings: action, reason, remember, cancel_reminders, remote_registration, deep_link */
};

#endif
