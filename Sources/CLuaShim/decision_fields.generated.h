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
    "cap_exempt",
    "notify",
    "title",
    "message",
    "accept",
    "decline",
    "presentation",
    "variant",
    "id",
    "link",
    "url",
    "options",
    "open",
    "cancel",
    "deep_link",
    "for_setting",
    "rows",
    "button",
};

static const char *const action_names[PERMIT_A_COUNT] = {
    "none",
    "soft_prompt",
    "request_permission",
    "settings_prompt",
    "open_settings",
    "inform",
    "dismiss",
};

static const unsigned allowed_fields[PERMIT_A_COUNT] = {
    0x7fu, /* none: action, reason, remember, cancel_reminders, remote_registration, cap_exempt, notify */
    0xffffu, /* soft_prompt: action, reason, remember, cancel_reminders, remote_registration, cap_exempt, notify, title, message, accept, decline, presentation, variant, id, link, url */
    0x1007fu, /* request_permission: action, reason, remember, cancel_reminders, remote_registration, cap_exempt, notify, options */
    0x3ee9ffu, /* settings_prompt: action, reason, remember, cancel_reminders, remote_registration, cap_exempt, notify, title, message, open, cancel, presentation, deep_link, for_setting, id, link, url, rows */
    0x8007fu, /* open_settings: action, reason, remember, cancel_reminders, remote_registration, cap_exempt, notify, deep_link */
    0x6ae9ffu, /* inform: action, reason, remember, cancel_reminders, remote_registration, cap_exempt, notify, title, message, button, open, deep_link, presentation, id, link, url, rows */
    0x7fu, /* dismiss: action, reason, remember, cancel_reminders, remote_registration, cap_exempt, notify */
};

#endif
