#ifndef PERMIT_CONTEXT_H
#define PERMIT_CONTEXT_H
/*
 * The warm context: the shim's public layer for one decision, built on permit_sandbox.h as
 * lauxlib.h is on lua.h. Included by PermitLua (Swift, through the CLuaShim module: FastPath,
 * LazyFieldsEncoder, StrictContext, ReminderListMemo) and by the shim's C files that implement
 * it (FastPath.c, LazyContext.c, StrictContext.c, ReminderList.c, through lazy_context.h too).
 *
 * What the host pushes per decision and reads back: ctx's eager fields in one call, the
 * snapshot its lazy fields are built from on first read, the strict metatables that word a
 * misspelt field, the decision's fields read in place, and a reminder list's bytes.
 */
#include <stddef.h>
#include <stdint.h>
#include <lua.h>
#include "permit_sandbox.h"

/* ctx fields built on first use (LazyContext.c): `history`, `settings`, `state`, `user`,
   `local_time`, and
   inside history its tables. The host pushes ctx with its other fields and attaches a
   snapshot of these: a header, then
   `feature_count` features, then `state_nodes` nodes describing `state` and then `user.arms`
   (each a table node and its subtree in pre-order: a table node is followed by its `children`
   direct children and their subtrees), then `text_bytes` bytes of names and strings. A field is built the first
   time a policy reads it; all of a table's are built when it is iterated or its metatable is
   asked for; the host also settles a table before reading it back. */
enum {
    PERMIT_H_DENIED_AT, PERMIT_H_FIRST_LAUNCH_AT, PERMIT_H_FOREGROUNDS, PERMIT_H_LAUNCHES, PERMIT_H_PROMPTS_TODAY,
    PERMIT_H_STATUS_CHANGED_AT,
    PERMIT_H_INFORM_DISMISSED, PERMIT_H_INFORM_LAST_SHOWN_AT, PERMIT_H_INFORM_LINKS, PERMIT_H_INFORM_OK,
    PERMIT_H_INFORM_OPENED, PERMIT_H_INFORM_SHOWN,
    PERMIT_H_SETTINGS_CANCELLED, PERMIT_H_SETTINGS_INLINE_ACTED, PERMIT_H_SETTINGS_INLINE_SHOWN,
    PERMIT_H_SETTINGS_LAST_SHOWN_AT, PERMIT_H_SETTINGS_LINKS, PERMIT_H_SETTINGS_OPENED, PERMIT_H_SETTINGS_SHOWN,
    PERMIT_H_SOFT_ACCEPTED, PERMIT_H_SOFT_DECLINED, PERMIT_H_SOFT_DISMISSED, PERMIT_H_SOFT_INLINE_ACTED,
    PERMIT_H_SOFT_INLINE_SHOWN, PERMIT_H_SOFT_LAST_ANSWERED_AT, PERMIT_H_SOFT_LAST_SHOWN_AT, PERMIT_H_SOFT_LINKS,
    PERMIT_H_SOFT_SHOWN,
    PERMIT_H_SYSTEM_ANSWERED_AT, PERMIT_H_SYSTEM_GRANTED, PERMIT_H_SYSTEM_REQUESTED, PERMIT_H_SYSTEM_SHOWN,
    PERMIT_H_COUNT /* at most 32: `absent` below has a bit for each */
};
/* The settings in `settings`, by name order. */
enum {
    PERMIT_S_ALERT, PERMIT_S_BADGE, PERMIT_S_CAR_PLAY, PERMIT_S_CRITICAL_ALERT, PERMIT_S_LIVE_ACTIVITIES,
    PERMIT_S_LOCK_SCREEN, PERMIT_S_NOTIFICATION_CENTER, PERMIT_S_SCHEDULED_DELIVERY, PERMIT_S_SOUND, PERMIT_S_TIME_SENSITIVE, PERMIT_S_COUNT
};
typedef struct permit_lazy_header {
    int64_t history[PERMIT_H_COUNT]; /* SYSTEM_GRANTED: 0 or 1 */
    uint32_t absent;                 /* bit n: history[n] is nil (times, granted) */
    int32_t keys_ref;                /* registry slot of the interned keys */
    int32_t last_status;             /* interned index */
    int32_t legacy_registered;       /* 0 or 1 */
    int32_t settings[PERMIT_S_COUNT]; /* interned indices of the values */
    int64_t bucket;
    int32_t local_hour, local_minute, local_weekday; /* local_time's numbers */
    uint32_t local_text_offset;                      /* local_time's date, then its zone id, in the text */
    uint32_t local_date_length, local_zone_length;
    uint32_t feature_count;
    uint32_t event_count; /* history.events: records like features' after them (opened: count, last_opened_at: last_at) */
    uint32_t state_nodes;
    uint32_t arms_node; /* user.arms: nodes [arms_node, state_nodes) (state is [0, arms_node)) */
    uint32_t text_bytes;
    uint32_t built[2]; /* the C side's: which lazy keys of ctx [0] and of history [1] are set (0 from the host) */
    int64_t serial;    /* the C side's: the call it was made in (0: made by a test's permit_lazy_attach, never ends) */
} permit_lazy_header;
typedef struct permit_lazy_feature {
    int64_t opened, last_opened_at, last_prompt_at;
    uint32_t absent; /* bit 1: last_opened_at is nil, bit 2: last_prompt_at is nil */
    uint32_t name_offset, name_length;
} permit_lazy_feature;
enum {
    PERMIT_LAZY_TABLE = 1, PERMIT_LAZY_INTEGER, PERMIT_LAZY_NUMBER, PERMIT_LAZY_BOOLEAN, PERMIT_LAZY_STRING
};
typedef struct permit_lazy_node {
    int64_t integer; /* INTEGER; BOOLEAN 0 or 1; TABLE: array size hint */
    double number;   /* NUMBER */
    int32_t key;     /* 0: text at key_offset; < 0: array position -key (the root's key is unused) */
    int32_t type;    /* PERMIT_LAZY_* */
    int32_t hash;     /* TABLE: hash size hint */
    int32_t children; /* TABLE: direct children following */
    uint32_t key_offset, key_length;
    uint32_t text_offset, text_length; /* STRING */
} permit_lazy_node;

/* ctx's eager fields in one call (FastPath.c): keys and enum values are indices into the
   interned strings (registry slot `keys`), params a registry slot. */
typedef struct permit_ctx_fields {
    int32_t keys;
    int32_t params; /* registry slot */
    int32_t shared; /* registry slot of the stored tables ctx's lazy fields take (PERMIT_SHARED_*) */
    int32_t key_event, key_now, key_params, key_previous_status, key_status, key_name;
    int64_t now;
    int32_t status, previous_status; /* interned values */
    int32_t event_name;              /* interned value */
    int32_t event_key;               /* interned key of the event's extra field, 0 when none */
    int32_t event_kind;              /* the extra value: 1 interned (event_value), 2 text, 3 boolean (event_value);
                                        4: an app event of its own, its name the text, no extra field (the host
                                        sets `properties` after) */
    int32_t event_value;
    const char *event_text;
    size_t event_text_length;
    int32_t key_prompt_id;       /* interned key of ctx.event.prompt_id, 0 when the event carries none */
    const char *prompt_id;       /* its text (an answer to a prompt with an `id`) */
    size_t prompt_id_length;
    int32_t hash; /* ctx's hash size hint */
    /* The lazy fields' snapshot is made when the policy first reads one of them, inside the
       call (LazyContext.c): `measure(source)` answers its size in bytes (0: it cannot be made),
       `write(source, memory)` fills that many. Both are the host's and run inside `__index`:
       they must not call Lua. `source` must stay valid until permit_lazy_close. */
    const void *source;
    size_t (*measure)(const void *source);
    void (*write)(const void *source, void *memory);
} permit_ctx_fields;
/// Where `platform`, `capabilities`, `locale` and `app` are in the list at `permit_ctx_fields.shared`,
/// which ctx builds those fields from (the snapshot made during the call holds the list).
enum { PERMIT_SHARED_PLATFORM = 1, PERMIT_SHARED_CAPABILITIES, PERMIT_SHARED_LOCALE, PERMIT_SHARED_APP };
/// Pushes a new ctx table with these fields (keys in sorted order, as the general path inserts
/// them), its lazy fields to be made from `source` on first read until permit_lazy_close, and
/// returns ctx's index; 0 when the stack cannot grow, -1 when memory ran out
/// (the pushes run under one protected call, so nothing is raised and nothing is pushed). Raw
/// operations only; call between calls.
int permit_push_context(lua_State *L, permit_ctx_fields *f);
/// Ends the call of the ctx last pushed: its `source` is not asked again, and a part of it not
/// read by then is an error to read later (docs/reference/policy.md, "ctx"). Never raises.
void permit_lazy_close(lua_State *L);
/// Pops the table on top into ctx.event.properties (ctx at `ctx`, made with event_kind 4, whose
/// event table has room for it: raw operations that neither allocate nor raise).
void permit_set_event_properties(lua_State *L, int ctx, int32_t keys, int32_t key_event, int32_t key_properties);

/// The codes of a decision table's fields (PERMIT_D_*) and actions (PERMIT_A_*), generated from
/// ContextSchema (DecisionReader's names).
#include "permit_decision.generated.h"
/// For a plain decision table at `idx` (no metatable, only string keys among the PERMIT_D_*
/// fields, `action` one of the PERMIT_A_* actions with only the fields that action allows):
/// pushes PERMIT_D_COUNT values (nil when absent) and returns (PERMIT_A_* code << 24) | the bit
/// set of present fields (bit n: PERMIT_D_* code n). Otherwise pushes nothing and returns -1:
/// the caller takes the general path, which words the error. Never runs Lua code.
int permit_decision_fields(lua_State *L, int idx);
/// The most bytes `permit_reminder_list_bytes` writes: a list is held in Lua's capped memory, but a
/// string it names many times would be written each time, so its encoding is not bounded by that
/// cap. A list past this (far beyond 64 reminders with their translations) is simply read.
#define PERMIT_REMINDER_LIST_MAX_BYTES 262144
/// Writes the contents of `plan_reminders`' list at `idx` as bytes (ReminderList.c): equal bytes
/// mean equal contents, so a host can take the list it read last time when they match. Writes at
/// most `capacity` bytes to `out` and sets `length` to what the whole encoding needs (more than
/// `capacity`: call again with room). Returns -1, writing nothing usable, for anything a reader
/// treats specially (a metatable, a value other than a string, number, boolean or table, more
/// than three levels) and for an encoding over PERMIT_REMINDER_LIST_MAX_BYTES. Raw access only:
/// never runs Lua code, allocates or raises.
int permit_reminder_list_bytes(lua_State *L, int idx, uint8_t *out, size_t capacity, size_t *length);
/// Builds the lazy fields of the table at `idx` (if it has any), then answers whether it has a
/// metatable (a ctx whose lazy fields cannot be built counts as having one, so it is refused).
/// Named for both steps: a reader must build before it reads, and this is where it does.
int permit_settle_then_has_metatable(lua_State *L, int idx);
/* The strict ctx (StrictContext.c): one metatable per closed table kind of ctx, defined once per
   VM by the host from its schema. Reading a field a strict table lacks and the schema does not
   name raises "PATH has no field \"x\"; did you mean \"y\"?" at the policy's line. */
enum {
    PERMIT_STRICT_CTX, PERMIT_STRICT_EVENT, PERMIT_STRICT_SETTINGS, PERMIT_STRICT_PLATFORM, PERMIT_STRICT_CAPABILITIES,
    PERMIT_STRICT_PARAMS, PERMIT_STRICT_HISTORY, PERMIT_STRICT_SOFT_PROMPT, PERMIT_STRICT_SYSTEM_PROMPT,
    PERMIT_STRICT_SETTINGS_PROMPT, PERMIT_STRICT_FEATURE, PERMIT_STRICT_EVENT_HISTORY, PERMIT_STRICT_EVENTS,
    PERMIT_STRICT_USER, PERMIT_STRICT_LOCAL_TIME, PERMIT_STRICT_APP, PERMIT_STRICT_INFORM, PERMIT_STRICT_COUNT
};
/// Defines table kind `id`: its path in errors, a hint added to them (or NULL), and the names
/// that may be absent yet are fields (`count` NUL-terminated strings one after the other; 0 for a
/// closed map, whose every valid key is present). Never raises: PERMIT_OK, PERMIT_E_MEMORY or PERMIT_E_RUNTIME.
int permit_strict_define(lua_State *L, int id, const char *path, const char *hint, const char *names, int count);
/// Gives the table at `idx` the strict metatable of `id`, if this VM defined it (else nothing).
/// Neither allocates nor raises.
void permit_strict_set(lua_State *L, int idx, int id);

#endif
