#include "PermitBenchReference.h"
#include "open_policy.h"
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The helpers a policy expects, in plain Lua (the reference has no sandbox to build). */
static const char *prelude = BENCH_HELPERS;

static void set_string(lua_State *L, const char *key, const char *value) {
    lua_pushstring(L, value);
    lua_setfield(L, -2, key);
}

static void set_integer(lua_State *L, const char *key, lua_Integer value) {
    lua_pushinteger(L, value);
    lua_setfield(L, -2, key);
}

static void set_boolean(lua_State *L, const char *key, int value) {
    lua_pushboolean(L, value);
    lua_setfield(L, -2, key);
}

/* `ctx.history` of a user who launched 3 times and opened reminders once, never asked. */
static void push_history(lua_State *L, lua_Integer now) {
    lua_createtable(L, 0, 12);
    set_integer(L, "launches", 3);
    set_integer(L, "foregrounds", 5);
    set_string(L, "last_status", "not_determined");
    set_boolean(L, "legacy_registered", 0);
    set_integer(L, "prompts_today", 0);
    set_integer(L, "first_launch_at", now - 86400);
    lua_createtable(L, 0, 8);
    set_integer(L, "shown", 0);
    set_integer(L, "accepted", 0);
    set_integer(L, "declined", 0);
    set_integer(L, "dismissed", 0);
    set_integer(L, "inline_shown", 0);
    set_integer(L, "inline_acted", 0);
    lua_setfield(L, -2, "soft_prompt");
    lua_createtable(L, 0, 4);
    set_integer(L, "requested", 0);
    set_integer(L, "shown", 0);
    lua_setfield(L, -2, "system_prompt");
    lua_createtable(L, 0, 6);
    set_integer(L, "shown", 0);
    set_integer(L, "opened", 0);
    set_integer(L, "cancelled", 0);
    set_integer(L, "inline_shown", 0);
    set_integer(L, "inline_acted", 0);
    lua_setfield(L, -2, "settings_prompt");
    lua_createtable(L, 0, 1);
    lua_createtable(L, 0, 3);
    set_integer(L, "opened", 1);
    set_integer(L, "last_opened_at", now);
    lua_setfield(L, -2, "reminders");
    lua_setfield(L, -2, "features");
    lua_createtable(L, 0, 0);
    lua_setfield(L, -2, "state");
}

/* The context of one `feature_opened` event on a not-yet-asked iOS 16.4 device. */
static void push_context(lua_State *L, lua_Integer now, int params_ref) {
    static const char *settings[] = {"alert", "sound", "badge", "lock_screen", "notification_center", "car_play",
                                     "critical_alert", "time_sensitive", "scheduled_delivery"};
    lua_createtable(L, 0, 12);

    lua_createtable(L, 0, 2);
    set_string(L, "name", "feature_opened");
    set_string(L, "feature", "reminders");
    lua_setfield(L, -2, "event");

    set_string(L, "status", "not_determined");
    set_string(L, "previous_status", "not_determined");

    lua_createtable(L, 0, 9);
    for (int i = 0; i < 9; i++) set_string(L, settings[i], "disabled");
    lua_setfield(L, -2, "settings");

    lua_createtable(L, 0, 5);
    set_string(L, "os", "ios");
    set_string(L, "version", "16.4");
    set_integer(L, "major", 16);
    set_integer(L, "minor", 4);
    set_integer(L, "patch", 0);
    lua_setfield(L, -2, "platform");

    lua_createtable(L, 0, 5);
    set_boolean(L, "user_notifications", 1);
    set_boolean(L, "provisional", 1);
    set_boolean(L, "ephemeral", 0);
    set_boolean(L, "notification_settings_link", 1);
    set_boolean(L, "time_sensitive", 1);
    lua_setfield(L, -2, "capabilities");

    push_history(L, now);
    lua_setfield(L, -2, "history");

    lua_createtable(L, 0, 0);
    lua_setfield(L, -2, "state");
    lua_rawgeti(L, LUA_REGISTRYINDEX, params_ref);
    lua_setfield(L, -2, "params");
    set_integer(L, "now", now);
    set_string(L, "locale", "en");
    lua_createtable(L, 0, 1);
    set_integer(L, "bucket", 42);
    lua_setfield(L, -2, "user");
}

/* Reads the decision back as Permit does: the action and each text field present. */
static int read_decision(lua_State *L) {
    static const char *fields[] = {"action", "reason", "title", "message", "accept", "decline", "deep_link"};
    int found = 0;
    if (!lua_istable(L, -1)) return 0;
    for (int i = 0; i < 7; i++) {
        lua_pushstring(L, fields[i]);
        if (lua_rawget(L, -2) == LUA_TSTRING) {
            size_t len;
            const char *text = lua_tolstring(L, -1, &len);
            found += text != NULL && len > 0;
        } else if (lua_istable(L, -1)) {
            lua_pushstring(L, "en");
            lua_rawget(L, -2);
            found += lua_isstring(L, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    return found;
}

static lua_State *open_policy(const char *source, size_t length, char *error, size_t error_size) {
    return bench_open_policy(prelude, source, length, error, error_size);
}

int permit_reference_decisions(const char *source, size_t length, int iterations, double *samples,
                               char *error, size_t error_size) {
    lua_State *L = open_policy(source, length, error, error_size);
    if (L == NULL) return -1;
    lua_getfield(L, -1, "decide");
    int decide_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_getfield(L, -1, "params");
    if (!lua_istable(L, -1)) {
        lua_pop(L, 1);
        lua_newtable(L);
    }
    int params_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pop(L, 1);
    int top = lua_gettop(L);
    lua_Integer now = 1767600000;
    for (int i = 0; i < iterations; i++) {
        double start = now_ns();
        lua_rawgeti(L, LUA_REGISTRYINDEX, decide_ref);
        push_context(L, now + i, params_ref);
        if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
            snprintf(error, error_size, "%s", lua_tostring(L, -1));
            lua_close(L);
            return -1;
        }
        (void)read_decision(L);
        lua_settop(L, top);
        samples[i] = now_ns() - start;
    }
    lua_close(L);
    return 0;
}

int permit_reference_cold_starts(const char *source, size_t length, int iterations, double *samples,
                                 char *error, size_t error_size) {
    for (int i = 0; i < iterations; i++) {
        double start = now_ns();
        lua_State *L = open_policy(source, length, error, error_size);
        if (L == NULL) return -1;
        samples[i] = now_ns() - start;
        lua_close(L);
    }
    return 0;
}
