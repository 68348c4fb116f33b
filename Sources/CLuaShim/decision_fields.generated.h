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
    "row",
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
    0xffu, /* none: action, reason, remember, cancel_reminders, remote_registration, cap_exempt, notify, row */
    0x1ffffu, /* soft_prompt: action, reason, remember, cancel_reminders, remote_registration, cap_exempt, notify, row, title, message, accept, decline, presentation, variant, id, link, url */
    0x200ffu, /* request_permission: action, reason, remember, cancel_reminders, remote_registration, cap_exempt, notify, row, options */
    0x7dd3ffu, /* settings_prompt: action, reason, remember, cancel_reminders, remote_registration, cap_exempt, notify, row, title, message, open, cancel, presentation, deep_link, for_setting, id, link, url, rows */
    0x1000ffu, /* open_settings: action, reason, remember, cancel_reminders, remote_registration, cap_exempt, notify, row, deep_link */
    0xd5d3ffu, /* inform: action, reason, remember, cancel_reminders, remote_registration, cap_exempt, notify, row, title, message, button, open, deep_link, presentation, id, link, url, rows */
    0xffu, /* dismiss: action, reason, remember, cancel_reminders, remote_registration, cap_exempt, notify, row */
};

#endif
