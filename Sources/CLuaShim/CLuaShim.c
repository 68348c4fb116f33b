#include "CLuaShim.h"
#include "small_pool.h"
#include "lazy_context.h"
#include <lauxlib.h>
#include <lualib.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Instructions between two count-hook events while the budget holds. */
#define HOOK_STEP 1000

#define KEY_BASE "permit.base"
#define KEY_FROZEN "permit.frozen"
#define KEY_TRACEBACK "permit.traceback"
#define KEY_GUARD "permit.guard_error"

typedef struct permit_vm {
    small_pool pool; /* Lua's small blocks (see small_pool.h) */
    size_t used, peak, limit;
    /* Tests (permit_fail_allocation): the growth to refuse (1: the next; 0: not armed), the
       real cap while armed, and the refused request, whose retry is refused too. */
    uint64_t fail_countdown;
    size_t armed_limit;
    int fail_retry;
    const void *fail_ptr;
    size_t fail_old, fail_new;
    int limit_on;    /* the cap applies only while script code can run */
    int mem_refused; /* the allocator refused a request during this call */
    int64_t budget_limit, budget_left;
    int budget_exceeded; /* sticky until the next call starts */
    int time_exceeded;
    int in_call; /* script code may run: allocations are charged */
    int64_t time_limit_ns, call_start_ns;
    int guard_kind;
    size_t max_subject, max_pattern, max_string;
    char *trace;
    size_t trace_len, trace_cap, trace_dropped;
    int trace_truncated;
    char host_error[512];
    /* Line coverage (permit test --coverage): lines run, per chunk source. */
    int coverage_on;
    struct cov_chunk {
        char *source;
        unsigned char *lines; /* one byte per line */
        int size;
    } cov[16];
    int ncov;
} permit_vm;

/* The wall-clock net needs milliseconds, not nanoseconds: the coarse clock (the kernel's tick,
   a few ms) is read without the cycle counter's cost, which every call paid. */
static int64_t now_ns(void) {
    struct timespec ts;
#ifdef CLOCK_MONOTONIC_COARSE
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static permit_vm *getvm(lua_State *L) {
    void *ud = NULL;
    (void)lua_getallocf(L, &ud);
    return (permit_vm *)ud;
}

/* ---------------------------------------------------------------- allocator */

static void fail_allocation_disarm(permit_vm *vm) {
    if (vm->fail_countdown != 0) vm->limit = vm->armed_limit;
    vm->fail_countdown = 0;
    vm->fail_retry = 0;
}

/* An allocation over the cap. When a test armed an injected failure, the cap is 0, so every
   growth lands here and the normal path pays nothing: this refuses the armed growth and Lua's
   one retry of it (after an emergency collection), then disarms; any other growth meets the
   real cap. */
static int over_cap(permit_vm *vm, const void *ptr, size_t old, size_t nsize) {
    if (vm->fail_countdown == 0) return 1;
    if (vm->fail_countdown > 1) {
        vm->fail_countdown--;
    } else if (!vm->fail_retry) {
        vm->fail_retry = 1;
        vm->fail_ptr = ptr;
        vm->fail_old = old;
        vm->fail_new = nsize;
        return 1;
    } else {
        int retry = ptr == vm->fail_ptr && old == vm->fail_old && nsize == vm->fail_new;
        fail_allocation_disarm(vm);
        if (retry) return 1;
    }
    return vm->used > vm->armed_limit || nsize - old > vm->armed_limit - vm->used;
}

void permit_fail_allocation(lua_State *L, uint64_t n) {
    permit_vm *vm = getvm(L);
    fail_allocation_disarm(vm);
    if (n == 0) return;
    vm->fail_countdown = n;
    vm->armed_limit = vm->limit;
    vm->limit = 0;
}

uint64_t permit_fail_allocation_pending(lua_State *L) {
    permit_vm *vm = getvm(L);
    return vm->fail_retry ? 0 : vm->fail_countdown;
}

static void *permit_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    permit_vm *vm = (permit_vm *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        if (ptr != NULL && !small_pool_give(&vm->pool, ptr, old)) free(ptr);
        vm->used -= old;
        return NULL;
    }
    if (nsize > old && vm->limit_on) {
        size_t grow = nsize - old;
        if ((vm->used > vm->limit || grow > vm->limit - vm->used) && over_cap(vm, ptr, old, nsize)) {
            vm->mem_refused = 1;
            return NULL;
        }
        /* Work on big strings (concatenation, upper, sub, format, ...) is
           proportional to what it allocates: charge one unit per 64 bytes.
           The allocation that exhausts the budget still succeeds (the count
           hook raises the budget error, with its position, at most 1000
           instructions later); until then allocations of 1 KiB or more fail,
           so those instructions cannot do much work. */
        uint64_t units = (uint64_t)(grow >> 6);
        if (units > 0 && vm->in_call) {
            if (vm->budget_exceeded) {
                if (grow >= 1024) return NULL;
            } else if (units > (uint64_t)vm->budget_left) {
                vm->budget_exceeded = 1;
                vm->budget_left = 0;
            } else {
                vm->budget_left -= (int64_t)units;
            }
        }
    }
    void *p = ptr == NULL ? small_pool_take_listed(&vm->pool, nsize) : NULL;
    if (p == NULL) p = small_pool_realloc(&vm->pool, ptr, old, nsize);
    if (p == NULL) {
        /* Lua assumes shrinking works. (Should a big block fail to move into the pool, it is
           later treated as a pool block of its new size: still valid memory, never freed.) */
        if (ptr != NULL && nsize <= old) return ptr;
        vm->mem_refused = 1;
        return NULL;
    }
    vm->used = vm->used - old + nsize;
    if (vm->used > vm->peak) vm->peak = vm->used;
    return p;
}

/* ------------------------------------------------------------------- budget */

static void count_hook(lua_State *L, lua_Debug *ar);

/* The count hook always; line events too while coverage is on. */
static int hook_mask(const permit_vm *vm) { return LUA_MASKCOUNT | (vm->coverage_on ? LUA_MASKLINE : 0); }

/* Notes that `line` of the running chunk ran. Uses malloc, not Lua's allocator, so coverage
   never changes what the memory cap sees. */
static void cov_record(lua_State *L, permit_vm *vm, lua_Debug *ar) {
    if (!lua_getinfo(L, "S", ar) || ar->source == NULL || ar->source[0] != '@') return;
    int line = ar->currentline;
    if (line <= 0 || line >= (1 << 20)) return;
    struct cov_chunk *chunk = NULL;
    for (int i = 0; i < vm->ncov; i++) {
        if (strcmp(vm->cov[i].source, ar->source) == 0) { chunk = &vm->cov[i]; break; }
    }
    if (chunk == NULL) {
        if (vm->ncov == (int)(sizeof(vm->cov) / sizeof(vm->cov[0]))) return;
        char *copy = strdup(ar->source);
        if (copy == NULL) return;
        chunk = &vm->cov[vm->ncov++];
        chunk->source = copy;
        chunk->lines = NULL;
        chunk->size = 0;
    }
    if (line >= chunk->size) {
        int size = chunk->size ? chunk->size : 256;
        while (size <= line) size *= 2;
        unsigned char *grown = (unsigned char *)realloc(chunk->lines, (size_t)size);
        if (grown == NULL) return;
        memset(grown + chunk->size, 0, (size_t)(size - chunk->size));
        chunk->lines = grown;
        chunk->size = size;
    }
    chunk->lines[line] = 1;
}

static int budget_fail(lua_State *L, permit_vm *vm, const char *where) {
    vm->budget_exceeded = 1;
    vm->budget_left = 0;
    /* From now on every instruction of this thread raises again, so a script's
       pcall cannot swallow the error and carry on. */
    lua_sethook(L, count_hook, hook_mask(vm), 1);
    int saved = vm->limit_on; /* the message must not be refused by the allocator */
    vm->limit_on = 0;
    luaL_where(L, 1);
    lua_pushfstring(L, "instruction budget of %I exceeded (%s)", (LUAI_UACINT)vm->budget_limit, where);
    lua_concat(L, 2);
    vm->limit_on = saved;
    return lua_error(L);
}

static void count_hook(lua_State *L, lua_Debug *ar) {
    permit_vm *vm = getvm(L);
    if (ar->event == LUA_HOOKLINE) {
        cov_record(L, vm, ar);
        return;
    }
    int step = lua_gethookcount(L);
    if (!vm->budget_exceeded) {
        /* Safety net for work neither instructions nor allocations show
           (e.g. comparing two long equal strings): a wall-clock limit. */
        if (vm->time_limit_ns > 0 && now_ns() - vm->call_start_ns > vm->time_limit_ns) {
            vm->time_exceeded = 1;
            vm->budget_exceeded = 1;
            vm->budget_left = 0;
        } else if (vm->budget_left >= step) {
            vm->budget_left -= step;
            if (step != HOOK_STEP) lua_sethook(L, count_hook, hook_mask(vm), HOOK_STEP);
            return;
        }
        vm->budget_exceeded = 1;
        vm->budget_left = 0;
    }
    if (step != 1) lua_sethook(L, count_hook, hook_mask(vm), 1);
    int saved = vm->limit_on; /* the message must not be refused by the allocator */
    vm->limit_on = 0;
    if (vm->time_exceeded) {
        if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
            lua_pushfstring(L, "%s:%d: time limit of %I ms exceeded", ar->short_src, ar->currentline,
                            (LUAI_UACINT)(vm->time_limit_ns / 1000000));
        else
            lua_pushfstring(L, "time limit of %I ms exceeded", (LUAI_UACINT)(vm->time_limit_ns / 1000000));
        vm->limit_on = saved;
        lua_error(L);
    }
    if (lua_getinfo(L, "Sl", ar) && ar->currentline > 0)
        lua_pushfstring(L, "%s:%d: instruction budget of %I exceeded", ar->short_src, ar->currentline,
                        (LUAI_UACINT)vm->budget_limit);
    else
        lua_pushfstring(L, "instruction budget of %I exceeded", (LUAI_UACINT)vm->budget_limit);
    vm->limit_on = saved;
    lua_error(L);
}

/* Charges work done inside C library functions against the instruction budget. */
static void charge(lua_State *L, permit_vm *vm, uint64_t units, const char *where) {
    if (vm->budget_exceeded || units > (uint64_t)vm->budget_left) budget_fail(L, vm, where);
    vm->budget_left -= (int64_t)units;
}

/* Raises an error of a guard kind; the error value is remembered so the host
   can tell whether the call finally failed with this very error. */
static int raise_guard(lua_State *L, int kind, const char *fmt, ...) {
    permit_vm *vm = getvm(L);
    va_list ap;
    luaL_where(L, 1);
    va_start(ap, fmt);
    lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    lua_concat(L, 2);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, KEY_GUARD);
    vm->guard_kind = kind;
    return lua_error(L);
}

/* -------------------------------------------------------------------- trace */

static void trace_add(permit_vm *vm, const char *s, size_t l) {
    if (vm->trace_truncated) {
        vm->trace_dropped += l;
        return;
    }
    size_t room = vm->trace_cap - vm->trace_len;
    if (l > room) {
        memcpy(vm->trace + vm->trace_len, s, room);
        vm->trace_len += room;
        vm->trace_truncated = 1;
        vm->trace_dropped += l - room;
        return;
    }
    memcpy(vm->trace + vm->trace_len, s, l);
    vm->trace_len += l;
}

static int sb_print(lua_State *L) {
    permit_vm *vm = getvm(L);
    int n = lua_gettop(L);
    size_t total = 1;
    for (int i = 1; i <= n; i++) {
        size_t l;
        if (vm->trace_truncated) { /* nothing more is kept: do not run __tostring */
            vm->trace_dropped += 1;
            continue;
        }
        const char *s = luaL_tolstring(L, i, &l);
        if (i > 1) trace_add(vm, "\t", 1);
        trace_add(vm, s, l);
        total += l;
        lua_pop(L, 1);
    }
    trace_add(vm, "\n", 1);
    charge(L, vm, 1 + total / 64, "print");
    return 0;
}

/* ------------------------------------------------------------ pattern matcher
 * An implementation of Lua 5.4 pattern semantics that charges every step to
 * the instruction budget, so a pathological pattern ends as a budget error
 * instead of hanging in C where the count hook cannot reach. */

#define PM_MAXCAP 32
#define PM_MAXDEPTH 200
#define CAP_UNF (-1)
#define CAP_POS (-2)

typedef struct MS {
    const char *src_init, *src_end, *p_end;
    lua_State *L;
    permit_vm *vm;
    int depth, level;
    struct {
        const char *init;
        ptrdiff_t len;
    } cap[PM_MAXCAP];
} MS;

#define PM_STEP(ms)                                                                                    \
    do {                                                                                               \
        if (--(ms)->vm->budget_left < 0) budget_fail((ms)->L, (ms)->vm, "pattern matching");           \
    } while (0)

static const char *pm_match(MS *ms, const char *s, const char *p);

static void ms_init(MS *ms, lua_State *L, const char *s, size_t ls, const char *p, size_t lp) {
    ms->L = L;
    ms->vm = getvm(L);
    ms->src_init = s;
    ms->src_end = s + ls;
    ms->p_end = p + lp;
    ms->level = 0;
    ms->depth = PM_MAXDEPTH;
}

static void ms_reset(MS *ms) {
    ms->level = 0;
    ms->depth = PM_MAXDEPTH;
}

/* Patterns come from Lua strings, which always end with a '\0' after p_end. */
static const char *class_end(MS *ms, const char *p) {
    char c = *p++;
    if (c == '%') {
        if (p >= ms->p_end) luaL_error(ms->L, "malformed pattern (ends with '%%')");
        return p + 1;
    }
    if (c == '[') {
        if (*p == '^') p++;
        do {
            if (p >= ms->p_end) luaL_error(ms->L, "malformed pattern (missing ']')");
            if (*(p++) == '%' && p < ms->p_end) p++;
        } while (*p != ']');
        return p + 1;
    }
    return p;
}

static int match_class(int c, int cl) {
    int res;
    switch (tolower(cl)) {
    case 'a': res = isalpha(c); break;
    case 'c': res = iscntrl(c); break;
    case 'd': res = isdigit(c); break;
    case 'g': res = isgraph(c); break;
    case 'l': res = islower(c); break;
    case 'p': res = ispunct(c); break;
    case 's': res = isspace(c); break;
    case 'u': res = isupper(c); break;
    case 'w': res = isalnum(c); break;
    case 'x': res = isxdigit(c); break;
    default: return cl == c;
    }
    res = res != 0;
    if (isupper(cl)) res = !res;
    return res;
}

/* p points at '[', ec at the closing ']'. */
static int match_bracket(int c, const char *p, const char *ec) {
    int sig = 1;
    if (*(p + 1) == '^') {
        sig = 0;
        p++;
    }
    while (++p < ec) {
        if (*p == '%') {
            p++;
            if (match_class(c, (unsigned char)*p)) return sig;
        } else if (*(p + 1) == '-' && p + 2 < ec) {
            p += 2;
            if ((unsigned char)*(p - 2) <= c && c <= (unsigned char)*p) return sig;
        } else if ((unsigned char)*p == c) {
            return sig;
        }
    }
    return !sig;
}

static int single_match(MS *ms, const char *s, const char *p, const char *ep) {
    if (s >= ms->src_end) return 0;
    int c = (unsigned char)*s;
    switch (*p) {
    case '.': return 1;
    case '%': return match_class(c, (unsigned char)*(p + 1));
    case '[': return match_bracket(c, p, ep - 1);
    default: return (unsigned char)*p == c;
    }
}

static const char *match_balance(MS *ms, const char *s, const char *p) {
    if (p + 1 >= ms->p_end) luaL_error(ms->L, "malformed pattern (missing arguments to '%%b')");
    if (s >= ms->src_end || *s != *p) return NULL;
    char b = *p, e = *(p + 1);
    int cont = 1;
    while (++s < ms->src_end) {
        PM_STEP(ms);
        if (*s == e) {
            if (--cont == 0) return s + 1;
        } else if (*s == b) {
            cont++;
        }
    }
    return NULL;
}

static const char *max_expand(MS *ms, const char *s, const char *p, const char *ep) {
    ptrdiff_t i = 0;
    while (single_match(ms, s + i, p, ep)) {
        PM_STEP(ms);
        i++;
    }
    while (i >= 0) {
        const char *r = pm_match(ms, s + i, ep + 1);
        if (r) return r;
        i--;
    }
    return NULL;
}

static const char *min_expand(MS *ms, const char *s, const char *p, const char *ep) {
    for (;;) {
        const char *r = pm_match(ms, s, ep + 1);
        if (r) return r;
        if (single_match(ms, s, p, ep))
            s++;
        else
            return NULL;
    }
}

static const char *start_capture(MS *ms, const char *s, const char *p, ptrdiff_t what) {
    int l = ms->level;
    if (l >= PM_MAXCAP) luaL_error(ms->L, "too many captures");
    ms->cap[l].init = s;
    ms->cap[l].len = what;
    ms->level = l + 1;
    const char *r = pm_match(ms, s, p);
    if (r == NULL) ms->level--;
    return r;
}

static int capture_to_close(MS *ms) {
    for (int level = ms->level - 1; level >= 0; level--)
        if (ms->cap[level].len == CAP_UNF) return level;
    return luaL_error(ms->L, "invalid pattern capture");
}

static const char *end_capture(MS *ms, const char *s, const char *p) {
    int l = capture_to_close(ms);
    ms->cap[l].len = s - ms->cap[l].init;
    const char *r = pm_match(ms, s, p);
    if (r == NULL) ms->cap[l].len = CAP_UNF;
    return r;
}

static int check_capture(MS *ms, int l) {
    l -= '1';
    if (l < 0 || l >= ms->level || ms->cap[l].len == CAP_UNF)
        return luaL_error(ms->L, "invalid capture index %%%d", l + 1);
    return l;
}

static const char *match_capture(MS *ms, const char *s, int l) {
    l = check_capture(ms, l);
    size_t len = (size_t)ms->cap[l].len;
    if ((size_t)(ms->src_end - s) >= len) {
        charge(ms->L, ms->vm, 1 + len / 32, "pattern matching");
        if (memcmp(ms->cap[l].init, s, len) == 0) return s + len;
    }
    return NULL;
}

static const char *pm_match(MS *ms, const char *s, const char *p) {
    if (ms->depth-- == 0) raise_guard(ms->L, PERMIT_E_PATTERN, "pattern too complex (recursion limit reached)");
    for (;;) {
        PM_STEP(ms);
        if (p >= ms->p_end) break;
        switch (*p) {
        case '(':
            if (p + 1 < ms->p_end && *(p + 1) == ')')
                s = start_capture(ms, s, p + 2, CAP_POS);
            else
                s = start_capture(ms, s, p + 1, CAP_UNF);
            goto done;
        case ')':
            s = end_capture(ms, s, p + 1);
            goto done;
        case '$':
            if (p + 1 != ms->p_end) goto dflt;
            if (s != ms->src_end) s = NULL;
            goto done;
        case '%':
            switch (*(p + 1)) {
            case 'b':
                s = match_balance(ms, s, p + 2);
                if (s != NULL) {
                    p += 4;
                    continue;
                }
                goto done;
            case 'f': {
                p += 2;
                if (*p != '[') luaL_error(ms->L, "missing '[' after '%%f' in pattern");
                const char *ep = class_end(ms, p);
                int prev = (s == ms->src_init) ? 0 : (unsigned char)*(s - 1);
                int cur = (s < ms->src_end) ? (unsigned char)*s : 0;
                if (!match_bracket(prev, p, ep - 1) && match_bracket(cur, p, ep - 1)) {
                    p = ep;
                    continue;
                }
                s = NULL;
                goto done;
            }
            case '0': case '1': case '2': case '3': case '4':
            case '5': case '6': case '7': case '8': case '9':
                s = match_capture(ms, s, (unsigned char)*(p + 1));
                if (s != NULL) {
                    p += 2;
                    continue;
                }
                goto done;
            default:
                goto dflt;
            }
        default:
        dflt: {
            const char *ep = class_end(ms, p);
            char epc = (ep < ms->p_end) ? *ep : '\0';
            if (!single_match(ms, s, p, ep)) {
                if (epc == '*' || epc == '?' || epc == '-') {
                    p = ep + 1;
                    continue;
                }
                s = NULL;
                goto done;
            }
            switch (epc) {
            case '?': {
                const char *r = pm_match(ms, s + 1, ep + 1);
                if (r != NULL) {
                    s = r;
                    goto done;
                }
                p = ep + 1;
                continue;
            }
            case '+': s = max_expand(ms, s + 1, p, ep); goto done;
            case '*': s = max_expand(ms, s, p, ep); goto done;
            case '-': s = min_expand(ms, s, p, ep); goto done;
            default:
                s++;
                p = ep;
                continue;
            }
        }
        }
    }
done:
    ms->depth++;
    return s;
}

static ptrdiff_t get_onecapture(MS *ms, int i, const char *s, const char *e, const char **cap) {
    if (i >= ms->level) {
        if (i != 0) luaL_error(ms->L, "invalid capture index %%%d", i + 1);
        *cap = s;
        return e - s;
    }
    ptrdiff_t l = ms->cap[i].len;
    *cap = ms->cap[i].init;
    if (l == CAP_UNF)
        luaL_error(ms->L, "unfinished capture");
    else if (l == CAP_POS)
        lua_pushinteger(ms->L, (ms->cap[i].init - ms->src_init) + 1);
    return l;
}

static void push_onecapture(MS *ms, int i, const char *s, const char *e) {
    const char *cap;
    ptrdiff_t l = get_onecapture(ms, i, s, e, &cap);
    if (l != CAP_POS) lua_pushlstring(ms->L, cap, (size_t)l);
}

static int push_captures(MS *ms, const char *s, const char *e) {
    int n = (ms->level == 0 && s != NULL) ? 1 : ms->level;
    luaL_checkstack(ms->L, n, "too many captures");
    for (int i = 0; i < n; i++) push_onecapture(ms, i, s, e);
    return n;
}

static size_t posrelI(lua_Integer pos, size_t len) {
    if (pos > 0) return (size_t)pos;
    if (pos == 0) return 1;
    if (pos < -(lua_Integer)len) return 1;
    return len + (size_t)pos + 1;
}

static void check_pattern_sizes(lua_State *L, permit_vm *vm, size_t ls, size_t lp) {
    if (ls > vm->max_subject)
        raise_guard(L, PERMIT_E_PATTERN, "pattern subject too long (%I bytes; the limit is %I)", (LUAI_UACINT)ls,
                    (LUAI_UACINT)vm->max_subject);
    if (lp > vm->max_pattern)
        raise_guard(L, PERMIT_E_PATTERN, "pattern too long (%I bytes; the limit is %I)", (LUAI_UACINT)lp,
                    (LUAI_UACINT)vm->max_pattern);
}

static int nospecials(const char *p, size_t l) {
    for (size_t i = 0; i < l; i++)
        if (p[i] != '\0' && strchr("^$*+?.([%-", p[i]) != NULL) return 0;
    return 1;
}

static const char *plain_find(lua_State *L, permit_vm *vm, const char *s1, size_t l1, const char *s2, size_t l2) {
    if (l2 == 0) return s1;
    if (l2 > l1) return NULL;
    l2--;
    l1 -= l2;
    const char *init;
    while (l1 > 0 && (init = (const char *)memchr(s1, *s2, l1)) != NULL) {
        init++;
        charge(L, vm, 1 + l2 / 32, "string.find");
        if (memcmp(init, s2 + 1, l2) == 0) return init - 1;
        l1 -= (size_t)(init - s1);
        s1 = init;
    }
    return NULL;
}

static int str_find_aux(lua_State *L, int find) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = posrelI(luaL_optinteger(L, 3, 1), ls) - 1;
    permit_vm *vm = getvm(L);
    check_pattern_sizes(L, vm, ls, lp);
    if (init > ls) {
        luaL_pushfail(L);
        return 1;
    }
    if (find && (lua_toboolean(L, 4) || nospecials(p, lp))) {
        const char *f = plain_find(L, vm, s + init, ls - init, p, lp);
        if (f != NULL) {
            lua_pushinteger(L, (f - s) + 1);
            lua_pushinteger(L, (lua_Integer)((size_t)(f - s) + lp));
            return 2;
        }
    } else {
        MS ms;
        const char *s1 = s + init;
        int anchor = (*p == '^');
        if (anchor) {
            p++;
            lp--;
        }
        ms_init(&ms, L, s, ls, p, lp);
        do {
            ms_reset(&ms);
            const char *e = pm_match(&ms, s1, p);
            if (e != NULL) {
                if (find) {
                    lua_pushinteger(L, (s1 - s) + 1);
                    lua_pushinteger(L, e - s);
                    return push_captures(&ms, NULL, NULL) + 2;
                }
                return push_captures(&ms, s1, e);
            }
        } while (s1++ < ms.src_end && !anchor);
    }
    luaL_pushfail(L);
    return 1;
}

static int sb_find(lua_State *L) { return str_find_aux(L, 1); }
static int sb_match(lua_State *L) { return str_find_aux(L, 0); }

typedef struct GM {
    const char *src, *p, *lastmatch;
    MS ms;
} GM;

static int gmatch_aux(lua_State *L) {
    GM *gm = (GM *)lua_touserdata(L, lua_upvalueindex(3));
    gm->ms.L = L; /* may run on another thread (coroutine) than the one that created it */
    for (const char *src = gm->src; src <= gm->ms.src_end; src++) {
        ms_reset(&gm->ms);
        const char *e = pm_match(&gm->ms, src, gm->p);
        if (e != NULL && e != gm->lastmatch) {
            gm->src = gm->lastmatch = e;
            return push_captures(&gm->ms, src, e);
        }
    }
    return 0;
}

static int sb_gmatch(lua_State *L) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = posrelI(luaL_optinteger(L, 3, 1), ls) - 1;
    check_pattern_sizes(L, getvm(L), ls, lp);
    if (init > ls) init = ls + 1;
    lua_settop(L, 2); /* upvalues 1 and 2 keep subject and pattern alive */
    GM *gm = (GM *)lua_newuserdatauv(L, sizeof(GM), 0);
    ms_init(&gm->ms, L, s, ls, p, lp);
    gm->src = s + init;
    gm->p = p;
    gm->lastmatch = NULL;
    lua_pushcclosure(L, gmatch_aux, 3);
    return 1;
}

static void out_check(MS *ms, size_t *total, size_t n) {
    if (n > ms->vm->max_string || *total > ms->vm->max_string - n)
        raise_guard(ms->L, PERMIT_E_STRING_SIZE, "string.gsub: resulting string too large (the limit is %I bytes)",
                    (LUAI_UACINT)ms->vm->max_string);
    *total += n;
}

static void add_s(MS *ms, luaL_Buffer *b, const char *s, const char *e, size_t *total) {
    lua_State *L = ms->L;
    size_t l;
    const char *news = lua_tolstring(L, 3, &l);
    const char *p;
    while ((p = (const char *)memchr(news, '%', l)) != NULL) {
        out_check(ms, total, (size_t)(p - news));
        luaL_addlstring(b, news, (size_t)(p - news));
        p++;
        if (*p == '%') {
            out_check(ms, total, 1);
            luaL_addchar(b, '%');
        } else if (isdigit((unsigned char)*p)) {
            if (*p == '0') {
                out_check(ms, total, (size_t)(e - s));
                luaL_addlstring(b, s, (size_t)(e - s));
            } else {
                size_t cl;
                push_onecapture(ms, *p - '1', s, e);
                luaL_tolstring(L, -1, &cl);
                lua_remove(L, -2);
                out_check(ms, total, cl);
                luaL_addvalue(b);
            }
        } else {
            luaL_error(L, "invalid use of '%c' in replacement string", '%');
        }
        l -= (size_t)(p + 1 - news);
        news = p + 1;
    }
    out_check(ms, total, l);
    luaL_addlstring(b, news, l);
}

static int add_value(MS *ms, luaL_Buffer *b, const char *s, const char *e, int tr, size_t *total) {
    lua_State *L = ms->L;
    switch (tr) {
    case LUA_TFUNCTION: {
        lua_pushvalue(L, 3);
        int n = push_captures(ms, s, e);
        lua_call(L, n, 1);
        break;
    }
    case LUA_TTABLE:
        push_onecapture(ms, 0, s, e);
        lua_gettable(L, 3);
        break;
    default:
        add_s(ms, b, s, e, total);
        return 1;
    }
    if (!lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        out_check(ms, total, (size_t)(e - s));
        luaL_addlstring(b, s, (size_t)(e - s));
        return 0;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    size_t l;
    lua_tolstring(L, -1, &l);
    out_check(ms, total, l);
    luaL_addvalue(b);
    return 1;
}

static int sb_gsub(lua_State *L) {
    size_t srcl, lp;
    const char *src = luaL_checklstring(L, 1, &srcl);
    const char *p = luaL_checklstring(L, 2, &lp);
    const char *lastmatch = NULL;
    int tr = lua_type(L, 3);
    lua_Integer max_s = luaL_optinteger(L, 4, (lua_Integer)srcl + 1);
    int anchor = (*p == '^');
    lua_Integer n = 0;
    int changed = 0;
    size_t total = 0;
    MS ms;
    luaL_Buffer b;
    luaL_argexpected(L, tr == LUA_TNUMBER || tr == LUA_TSTRING || tr == LUA_TFUNCTION || tr == LUA_TTABLE, 3,
                     "string/function/table");
    check_pattern_sizes(L, getvm(L), srcl, lp);
    luaL_buffinit(L, &b);
    if (anchor) {
        p++;
        lp--;
    }
    ms_init(&ms, L, src, srcl, p, lp);
    while (n < max_s) {
        ms_reset(&ms);
        const char *e = pm_match(&ms, src, p);
        if (e != NULL && e != lastmatch) {
            n++;
            changed = add_value(&ms, &b, src, e, tr, &total) | changed;
            src = lastmatch = e;
        } else if (src < ms.src_end) {
            out_check(&ms, &total, 1);
            luaL_addchar(&b, *src++);
        } else {
            break;
        }
        if (anchor) break;
    }
    if (!changed) {
        lua_pushvalue(L, 1);
    } else {
        out_check(&ms, &total, (size_t)(ms.src_end - src));
        luaL_addlstring(&b, src, (size_t)(ms.src_end - src));
        luaL_pushresult(&b);
    }
    lua_pushinteger(L, n);
    return 2;
}

static int sb_rep(lua_State *L) {
    size_t l, lsep;
    const char *s = luaL_checklstring(L, 1, &l);
    lua_Integer n = luaL_checkinteger(L, 2);
    const char *sep = luaL_optlstring(L, 3, "", &lsep);
    permit_vm *vm = getvm(L);
    if (n <= 0 || (l == 0 && lsep == 0)) {
        lua_pushliteral(L, "");
        return 1;
    }
    uint64_t un = (uint64_t)n, max = vm->max_string;
    int too_large = (l > 0 && un > max / l) || (lsep > 0 && un - 1 > max / lsep);
    uint64_t total = 0;
    if (!too_large) {
        total = un * l + (un - 1) * lsep;
        too_large = total > max;
    }
    if (too_large)
        return raise_guard(L, PERMIT_E_STRING_SIZE, "string.rep: resulting string too large (the limit is %I bytes)",
                           (LUAI_UACINT)max);
    charge(L, vm, 1 + total / 64, "string.rep");
    luaL_Buffer b;
    char *out = luaL_buffinitsize(L, &b, (size_t)total);
    for (uint64_t i = 0; i < un; i++) {
        memcpy(out, s, l);
        out += l;
        if (lsep > 0 && i + 1 < un) {
            memcpy(out, sep, lsep);
            out += lsep;
        }
    }
    luaL_pushresultsize(&b, (size_t)total);
    return 1;
}

/* ---------------------------------------------------- table functions (loops) */

static lua_Integer checked_len(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    return luaL_len(L, 1);
}

static int sb_tinsert(lua_State *L) {
    lua_Integer e = checked_len(L) + 1; /* first empty slot */
    lua_Integer pos;
    switch (lua_gettop(L)) {
    case 2: pos = e; break;
    case 3:
        pos = luaL_checkinteger(L, 2);
        luaL_argcheck(L, (lua_Unsigned)pos - 1u < (lua_Unsigned)e, 2, "position out of bounds");
        charge(L, getvm(L), (uint64_t)(e - pos), "table.insert");
        for (lua_Integer i = e; i > pos; i--) {
            lua_geti(L, 1, i - 1);
            lua_seti(L, 1, i);
        }
        break;
    default: return luaL_error(L, "wrong number of arguments to 'insert'");
    }
    lua_seti(L, 1, pos);
    return 0;
}

static int sb_tremove(lua_State *L) {
    lua_Integer size = checked_len(L);
    lua_Integer pos = luaL_optinteger(L, 2, size);
    if (pos != size) luaL_argcheck(L, (lua_Unsigned)pos - 1u <= (lua_Unsigned)size, 2, "position out of bounds");
    if (size > pos) charge(L, getvm(L), (uint64_t)(size - pos), "table.remove");
    lua_geti(L, 1, pos);
    for (; pos < size; pos++) {
        lua_geti(L, 1, pos + 1);
        lua_seti(L, 1, pos);
    }
    lua_pushnil(L);
    lua_seti(L, 1, pos);
    return 1;
}

/* Charges the element count, then runs the original table.move (upvalue 1). */
static int sb_tmove(lua_State *L) {
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    if (e >= f) charge(L, getvm(L), (uint64_t)((lua_Unsigned)e - (lua_Unsigned)f) + 1, "table.move");
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* math.randomseed without arguments would seed from the clock: refused. */
static int sb_randomseed(lua_State *L) {
    int n = lua_gettop(L);
    if (n == 0) return luaL_error(L, "math.randomseed needs an explicit seed in the sandbox");
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/* ------------------------------------------------------- guarded base functions */

/* xpcall's message handler runs before the stack unwinds; when the error was
   raised by the count hook, Lua runs it with hooks disabled. So once the budget
   is gone the script's handler is skipped and the error passes unchanged. */
static int xpcall_handler(lua_State *L) {
    if (getvm(L)->budget_exceeded) return 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int finish_pcall(lua_State *L, int status, lua_KContext extra) {
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

static int sb_xpcall(lua_State *L) {
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, xpcall_handler, 1); /* the guarded handler */
    lua_pushboolean(L, 1);                  /* first result */
    lua_pushvalue(L, 1);                    /* the function */
    lua_rotate(L, 3, 3);                    /* handler, true, function, args... */
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 3, 3, finish_pcall);
    return finish_pcall(L, status, 3);
}

static int is_frozen(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    lua_getfield(L, LUA_REGISTRYINDEX, KEY_FROZEN);
    lua_pushvalue(L, idx);
    int frozen = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return frozen;
}

static int ro_newindex(lua_State *L) { return luaL_error(L, "attempt to modify a read-only table"); }

static int ro_next(lua_State *L) {
    lua_settop(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushvalue(L, 2);
    if (lua_next(L, 3)) return 2;
    lua_pushnil(L);
    return 1;
}

/* __pairs of a read-only proxy: iterates the hidden table without exposing it. */
static int ro_pairs(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_pushcclosure(L, ro_next, 1);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

static int ro_len(lua_State *L) {
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, lua_upvalueindex(1)));
    return 1;
}

/* Pushes an empty proxy whose reads go to the table at `real`. */
static void push_proxy(lua_State *L, int real) {
    real = lua_absindex(L, real);
    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 5);
    lua_pushvalue(L, real);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, ro_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pushvalue(L, real);
    lua_pushcclosure(L, ro_pairs, 1);
    lua_setfield(L, -2, "__pairs");
    lua_pushvalue(L, real);
    lua_pushcclosure(L, ro_len, 1);
    lua_setfield(L, -2, "__len");
    lua_setmetatable(L, -2);
    lua_getfield(L, LUA_REGISTRYINDEX, KEY_FROZEN);
    lua_pushvalue(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

static void freeze_deep(lua_State *L, int depth) {
    int t = lua_gettop(L);
    if (depth < 64) {
        lua_pushnil(L);
        while (lua_next(L, t)) {
            if (lua_type(L, -1) == LUA_TTABLE && !is_frozen(L, -1)) {
                freeze_deep(L, depth + 1); /* replaces the value on top by its proxy */
                lua_pushvalue(L, -2);
                lua_insert(L, -2);
                lua_rawset(L, t);
            } else {
                lua_pop(L, 1);
            }
        }
    }
    push_proxy(L, t);
    lua_replace(L, t);
}

/* next, pairs, rawget, rawset, getmetatable and setmetatable see past metamethods: on a ctx
   whose fields are still to be built (LazyContext.c), they build them first. */

static int sb_next(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    permit_lazy_settle_in_call(L, 1);
    lua_settop(L, 2);
    if (lua_next(L, 1)) return 2;
    lua_pushnil(L);
    return 1;
}

static int pairs_from_metamethod(lua_State *L, int status, lua_KContext k) {
    (void)L;
    (void)status;
    (void)k;
    return 3;
}

/* As Lua's pairs (a __pairs metamethod is honoured), with the sandbox's next. */
static int sb_pairs(lua_State *L) {
    luaL_checkany(L, 1);
    permit_lazy_settle_in_call(L, 1);
    if (luaL_getmetafield(L, 1, "__pairs") == LUA_TNIL) {
        lua_pushcfunction(L, sb_next);
        lua_pushvalue(L, 1);
        lua_pushnil(L);
        return 3;
    }
    lua_pushvalue(L, 1);
    lua_callk(L, 1, 3, 0, pairs_from_metamethod);
    return 3;
}

static int sb_rawget(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    permit_lazy_settle_in_call(L, 1);
    lua_settop(L, 2);
    lua_rawget(L, 1);
    return 1;
}

static int sb_rawset(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    permit_lazy_settle_in_call(L, 1);
    if (is_frozen(L, 1)) return luaL_error(L, "attempt to modify a read-only table");
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

/* Only tables show a metatable: the string metatable stays hidden. */
static int sb_getmetatable(lua_State *L) {
    luaL_checkany(L, 1);
    permit_lazy_settle_in_call(L, 1);
    if (lua_type(L, 1) != LUA_TTABLE || !lua_getmetatable(L, 1)) {
        lua_pushnil(L);
        return 1;
    }
    (void)luaL_getmetafield(L, 1, "__metatable"); /* pushes the field only when present */
    return 1;
}

/* Finalizers would run policy code at arbitrary moments (between calls, while
   the host reads results): refused. */
static int sb_setmetatable(lua_State *L) {
    int t = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, t == LUA_TNIL || t == LUA_TTABLE, 2, "nil or table");
    permit_lazy_settle_in_call(L, 1);
    if (t == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        if (lua_rawget(L, 2) != LUA_TNIL) return luaL_error(L, "__gc metamethods are not available in the sandbox");
        lua_pop(L, 1);
    }
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL) return luaL_error(L, "cannot change a protected metatable");
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

static void push_new_env(lua_State *L) {
    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 2);
    lua_getfield(L, LUA_REGISTRYINDEX, KEY_BASE);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
}

/* load(chunk [, chunkname [, mode [, env]]]): text chunks only, into a fresh
   sandbox environment or into a table the script provides. */
static int sb_load(lua_State *L) {
    size_t l;
    if (lua_type(L, 1) != LUA_TSTRING) return luaL_argerror(L, 1, "string expected (only text chunks can be loaded)");
    const char *s = lua_tolstring(L, 1, &l);
    const char *name = luaL_optstring(L, 2, "=(load)");
    /* A script-chosen name shows as [string "name"]: it cannot pose as a policy file. */
    if (!lua_isnoneornil(L, 2) && (name[0] == '@' || name[0] == '=')) name++;
    int hasenv = !lua_isnone(L, 4);
    if (hasenv) luaL_checktype(L, 4, LUA_TTABLE);
    charge(L, getvm(L), 1 + l, "load");
    if (l > 0 && s[0] == LUA_SIGNATURE[0]) {
        luaL_pushfail(L);
        lua_pushliteral(L, "binary chunks are not allowed in the sandbox");
        return 2;
    }
    int st = luaL_loadbufferx(L, s, l, name, "t");
    if (st == LUA_ERRMEM) return lua_error(L);
    if (st != LUA_OK) {
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    if (hasenv)
        lua_pushvalue(L, 4);
    else
        push_new_env(L);
    if (lua_setupvalue(L, -2, 1) == NULL) lua_pop(L, 1);
    return 1;
}

/* ------------------------------------------------------------------- permit */

static int scale(lua_State *L, lua_Integer k) {
    if (lua_isinteger(L, 1)) {
        lua_Integer n = lua_tointeger(L, 1);
        if (n <= LUA_MAXINTEGER / k && n >= LUA_MININTEGER / k)
            lua_pushinteger(L, n * k);
        else
            lua_pushnumber(L, (lua_Number)n * (lua_Number)k);
        return 1;
    }
    luaL_checktype(L, 1, LUA_TNUMBER);
    lua_pushnumber(L, lua_tonumber(L, 1) * (lua_Number)k);
    return 1;
}

static int p_minutes(lua_State *L) { return scale(L, 60); }
static int p_hours(lua_State *L) { return scale(L, 3600); }
static int p_days(lua_State *L) { return scale(L, 86400); }

static int p_since(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    if (lua_isnoneornil(L, 2)) {
        lua_pushnumber(L, HUGE_VAL);
        return 1;
    }
    luaL_checktype(L, 2, LUA_TNUMBER);
    if (lua_getfield(L, 1, "now") != LUA_TNUMBER) return luaL_error(L, "permit.since: ctx.now is not a number");
    lua_pushvalue(L, 2);
    lua_arith(L, LUA_OPSUB);
    return 1;
}

/* Reads the next numeric component; leading zeros are skipped so components
   of any length compare by (length, bytes). Returns 0 at the end. */
static int version_component(const char **s, const char **start, size_t *len) {
    const char *p = *s;
    if (!isdigit((unsigned char)*p)) return 0;
    while (*p == '0' && isdigit((unsigned char)p[1])) p++;
    *start = p;
    while (isdigit((unsigned char)*p)) p++;
    *len = (size_t)(p - *start);
    if ((*start)[0] == '0') *len = 0; /* the value zero */
    if (*p == '.' && isdigit((unsigned char)p[1])) p++;
    *s = p;
    return 1;
}

static int compare_versions(const char *a, const char *b) {
    for (;;) {
        const char *sa = "", *sb = "";
        size_t la = 0, lb = 0;
        int ha = version_component(&a, &sa, &la);
        int hb = version_component(&b, &sb, &lb);
        if (!ha && !hb) return 0;
        if (la != lb) return la < lb ? -1 : 1;
        int c = memcmp(sa, sb, la);
        if (c != 0) return c < 0 ? -1 : 1;
    }
}

static int valid_version(const char *s) {
    if (!isdigit((unsigned char)*s)) return 0;
    for (;;) {
        while (isdigit((unsigned char)*s)) s++;
        if (*s == '\0') return 1;
        if (*s != '.' || !isdigit((unsigned char)s[1])) return 0;
        s++;
    }
}

static int p_at_least(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    const char *want = luaL_checkstring(L, 2);
    luaL_argcheck(L, valid_version(want), 2, "version like \"12.0\" expected");
    if (lua_getfield(L, 1, "platform") != LUA_TTABLE) return luaL_error(L, "permit.at_least: ctx.platform is not a table");
    if (lua_getfield(L, -1, "version") != LUA_TSTRING)
        return luaL_error(L, "permit.at_least: ctx.platform.version is not a string");
    lua_pushboolean(L, compare_versions(lua_tostring(L, -1), want) >= 0);
    return 1;
}

/* ------------------------------------------------------------------ sandbox */

static const char *const allowed_base[] = {
    "assert", "error", "ipairs", "pcall", "select", "tonumber", "tostring", "type", "rawequal",
    "rawlen", NULL,
};

static void set_fn(lua_State *L, int t, const char *name, lua_CFunction f) {
    lua_pushcfunction(L, f);
    lua_setfield(L, t, name);
}

/* Replaces t[name] by f with the original as upvalue 1. */
static void wrap_fn(lua_State *L, int t, const char *name, lua_CFunction f) {
    lua_getfield(L, t, name);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, t, name);
}

static int setup(lua_State *L) {
    uint64_t seed = (uint64_t)lua_tointeger(L, 1);
    lua_settop(L, 0);
    luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
    luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
    luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
    luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
    luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
    luaL_requiref(L, LUA_COLIBNAME, luaopen_coroutine, 1);
    lua_settop(L, 0);

    lua_newtable(L);
    lua_setfield(L, LUA_REGISTRYINDEX, KEY_FROZEN);
    permit_lazy_install(L);

    lua_pushglobaltable(L); /* 1: the real globals (emptied below) */
    lua_newtable(L);        /* 2: the sandbox base */
    for (const char *const *n = allowed_base; *n != NULL; n++) {
        lua_getfield(L, 1, *n);
        lua_setfield(L, 2, *n);
    }
    set_fn(L, 2, "next", sb_next);
    set_fn(L, 2, "pairs", sb_pairs);
    set_fn(L, 2, "rawget", sb_rawget);
    set_fn(L, 2, "rawset", sb_rawset);
    set_fn(L, 2, "getmetatable", sb_getmetatable);
    set_fn(L, 2, "setmetatable", sb_setmetatable);
    set_fn(L, 2, "print", sb_print);
    set_fn(L, 2, "load", sb_load);
    set_fn(L, 2, "xpcall", sb_xpcall);

    /* string: the real table stays the string metatable's __index. */
    lua_getfield(L, 1, "string"); /* 3 */
    lua_pushnil(L);
    lua_setfield(L, 3, "dump");
    set_fn(L, 3, "find", sb_find);
    set_fn(L, 3, "match", sb_match);
    set_fn(L, 3, "gmatch", sb_gmatch);
    set_fn(L, 3, "gsub", sb_gsub);
    set_fn(L, 3, "rep", sb_rep);
    lua_pushliteral(L, "");
    if (lua_getmetatable(L, -1)) {
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");
        lua_pushvalue(L, 3);
        lua_setfield(L, -2, "__index");
        lua_pop(L, 1);
    }
    lua_pop(L, 1);

    lua_getfield(L, 1, "table"); /* 4 */
    set_fn(L, 4, "insert", sb_tinsert);
    set_fn(L, 4, "remove", sb_tremove);
    wrap_fn(L, 4, "move", sb_tmove);

    lua_getfield(L, 1, "math"); /* 5 */
    lua_getfield(L, 5, "randomseed");
    lua_pushinteger(L, (lua_Integer)(seed >> 32));
    lua_pushinteger(L, (lua_Integer)(seed & 0xffffffffu));
    lua_call(L, 2, 0);
    wrap_fn(L, 5, "randomseed", sb_randomseed);

    lua_getfield(L, 1, "utf8");      /* 6 */
    lua_getfield(L, 1, "coroutine"); /* 7 */

    lua_createtable(L, 0, 6); /* 8: permit */
    set_fn(L, 8, "minutes", p_minutes);
    set_fn(L, 8, "hours", p_hours);
    set_fn(L, 8, "days", p_days);
    set_fn(L, 8, "since", p_since);
    set_fn(L, 8, "at_least", p_at_least);
    set_fn(L, 8, "log", sb_print);
    /* `remember = { key = permit.forget }` deletes a key: a Lua table cannot hold nil. The NUL
       byte keeps the marker out of any real text. */
    lua_pushlstring(L, "\0permit.forget", 14);
    lua_setfield(L, 8, "forget");

    static const char *const libs[] = {"string", "table", "math", "utf8", "coroutine", "permit"};
    for (int i = 0; i < 6; i++) {
        push_proxy(L, 3 + i);
        lua_setfield(L, 2, libs[i]);
    }

    lua_pushvalue(L, 2);
    lua_setfield(L, LUA_REGISTRYINDEX, KEY_BASE);

    /* Empty the real globals: nothing in the sandbox reaches them, and nothing
       dangerous (dofile, loadfile, collectgarbage, ...) is left anywhere. */
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        lua_pop(L, 1);
        lua_pushvalue(L, -1);
        lua_pushnil(L);
        lua_rawset(L, 1);
    }
    lua_settop(L, 0);
    return 0;
}

/* ------------------------------------------------------------- host facing */

lua_State *permit_open(const permit_limits *limits, uint64_t seed) {
    permit_vm *vm = (permit_vm *)calloc(1, sizeof(permit_vm));
    if (vm == NULL) return NULL;
    vm->limit = limits->memory_bytes;
    vm->budget_limit = limits->instructions_per_call > 0 ? limits->instructions_per_call : 1;
    vm->time_limit_ns = limits->time_limit_ms > 0 ? limits->time_limit_ms * 1000000 : 0;
    vm->budget_exceeded = 1; /* no script code runs outside permit_call */
    vm->max_subject = limits->max_pattern_subject;
    vm->max_pattern = limits->max_pattern;
    vm->max_string = limits->max_string;
    vm->trace_cap = limits->trace_cap;
    vm->trace = (char *)malloc(vm->trace_cap + 1);
    if (vm->trace == NULL) {
        free(vm);
        return NULL;
    }
    lua_State *L = lua_newstate(permit_alloc, vm);
    if (L == NULL) {
        small_pool_release(&vm->pool);
        free(vm->trace);
        free(vm);
        return NULL;
    }
    lua_pushcfunction(L, setup);
    lua_pushinteger(L, (lua_Integer)seed);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        permit_close(L);
        return NULL;
    }
    lua_settop(L, 0);
    /* A cycle starts when the heap reaches 4x what survived the last one (Lua's default: 2x).
       A policy's live data is tens of KiB and every decision leaves about a dozen dead tables,
       so the default re-marked the live set every few dozen decisions; 4x halves that work for
       a heap of a few hundred KiB, far below the memory cap (which still applies). */
    (void)lua_gc(L, LUA_GCINC, 400, 0, 0);
    return L;
}

void permit_close(lua_State *L) {
    permit_vm *vm = getvm(L);
    vm->limit_on = 0;
    lua_close(L);
    small_pool_release(&vm->pool);
    for (int i = 0; i < vm->ncov; i++) {
        free(vm->cov[i].source);
        free(vm->cov[i].lines);
    }
    free(vm->trace);
    free(vm);
}

/* ----------------------------------------------------------------- coverage */

void permit_set_coverage(lua_State *L, int on) {
    permit_vm *vm = getvm(L);
    vm->coverage_on = on != 0;
    lua_sethook(L, count_hook, hook_mask(vm), HOOK_STEP);
}

int permit_covered_lines(lua_State *L, const char *source, int *out, int max) {
    permit_vm *vm = getvm(L);
    int n = 0;
    for (int i = 0; i < vm->ncov; i++) {
        if (strcmp(vm->cov[i].source, source) != 0) continue;
        for (int line = 1; line < vm->cov[i].size && n < max; line++) {
            if (vm->cov[i].lines[line]) out[n++] = line;
        }
    }
    return n;
}

/* Adds the lines with code of the Lua function on the top of the stack (popped) and of the
   functions reachable from its upvalues, directly or through tables, that come from the same
   chunk. `seen` holds visited objects; depth bounds the walk. */
static void active_lines(lua_State *L, const char *source, int seen, unsigned char *lines, int size, int depth) {
    const void *p = lua_topointer(L, -1);
    if (depth > 8 || p == NULL) {
        lua_pop(L, 1);
        return;
    }
    if (lua_rawgetp(L, seen, p) != LUA_TNIL) {
        lua_pop(L, 2);
        return;
    }
    lua_pop(L, 1);
    lua_pushboolean(L, 1);
    lua_rawsetp(L, seen, p);
    if (lua_type(L, -1) == LUA_TTABLE) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            int type = lua_type(L, -1);
            if (type == LUA_TFUNCTION || type == LUA_TTABLE) {
                active_lines(L, source, seen, lines, size, depth + 1);
            } else {
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);
        return;
    }
    if (lua_type(L, -1) != LUA_TFUNCTION || lua_iscfunction(L, -1)) {
        lua_pop(L, 1);
        return;
    }
    for (int i = 1; lua_getupvalue(L, -1, i) != NULL; i++) {
        int type = lua_type(L, -1);
        if (type == LUA_TFUNCTION || type == LUA_TTABLE) {
            active_lines(L, source, seen, lines, size, depth + 1);
        } else {
            lua_pop(L, 1);
        }
    }
    lua_Debug ar;
    lua_pushvalue(L, -1);
    if (lua_getinfo(L, ">SL", &ar) && ar.source != NULL && strcmp(ar.source, source) == 0 && lua_istable(L, -1)) {
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            lua_Integer line = lua_tointeger(L, -2);
            if (line > 0 && line < size) lines[line] = 1;
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 2); /* the activelines table (or nil), the function */
}

int permit_active_lines(lua_State *L, const int *refs, int nrefs, const char *source, int *out, int max) {
    permit_vm *vm = getvm(L);
    int saved = vm->limit_on;
    vm->limit_on = 0;
    int size = 1 << 16;
    unsigned char *lines = (unsigned char *)calloc((size_t)size, 1);
    if (lines == NULL) {
        vm->limit_on = saved;
        return 0;
    }
    int base = lua_gettop(L);
    lua_newtable(L);
    int seen = lua_gettop(L);
    for (int i = 0; i < nrefs; i++) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, refs[i]);
        active_lines(L, source, seen, lines, size, 0);
    }
    lua_settop(L, base);
    int n = 0;
    for (int line = 1; line < size && n < max; line++) {
        if (lines[line]) out[n++] = line;
    }
    free(lines);
    vm->limit_on = saved;
    return n;
}

int permit_load(lua_State *L, const char *src, size_t len, const char *chunkname) {
    permit_vm *vm = getvm(L);
    if (len > 0 && src[0] == LUA_SIGNATURE[0]) {
        const char *shown = (chunkname[0] == '@' || chunkname[0] == '=') ? chunkname + 1 : chunkname;
        lua_pushfstring(L, "%s: precompiled (binary) chunks are refused; load the policy as Lua source text", shown);
        return PERMIT_E_BINARY;
    }
    vm->mem_refused = 0;
    vm->limit_on = 1;
    int st = luaL_loadbufferx(L, src, len, chunkname, "t");
    vm->limit_on = 0;
    if (st == LUA_ERRSYNTAX) return PERMIT_E_SYNTAX;
    if (st == LUA_ERRMEM) return PERMIT_E_MEMORY;
    if (st != LUA_OK) return PERMIT_E_RUNTIME;
    push_new_env(L);
    if (lua_setupvalue(L, -2, 1) == NULL) lua_pop(L, 1);
    return PERMIT_OK;
}

/* Message handler: adds a traceback, never runs script code (no __tostring). */
static int msgh(lua_State *L) {
    permit_vm *vm = getvm(L);
    int saved = vm->limit_on;
    vm->limit_on = 0;
    permit_push_error_text(L, 1);
    luaL_traceback(L, L, lua_tostring(L, -1), 1);
    lua_setfield(L, LUA_REGISTRYINDEX, KEY_TRACEBACK);
    vm->limit_on = saved;
    lua_settop(L, 1);
    return 1;
}

void permit_push_error_text(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    switch (lua_type(L, idx)) {
    case LUA_TSTRING: lua_pushvalue(L, idx); break;
    case LUA_TNUMBER:
        if (lua_isinteger(L, idx))
            lua_pushfstring(L, "%I", (LUAI_UACINT)lua_tointeger(L, idx));
        else
            lua_pushfstring(L, "%f", (LUAI_UACNUMBER)lua_tonumber(L, idx));
        break;
    case LUA_TNIL: lua_pushliteral(L, "nil"); break;
    case LUA_TBOOLEAN: lua_pushstring(L, lua_toboolean(L, idx) ? "true" : "false"); break;
    default: lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, idx)); break;
    }
}

static int classify(lua_State *L, permit_vm *vm, int st) {
    if (vm->time_exceeded) return PERMIT_E_TIME;
    if (vm->budget_exceeded) return PERMIT_E_BUDGET;
    if (st == LUA_ERRMEM) return PERMIT_E_MEMORY;
    if (st == LUA_ERRERR) return PERMIT_E_ERRERR;
    if (vm->guard_kind != 0) {
        lua_getfield(L, LUA_REGISTRYINDEX, KEY_GUARD);
        int same = lua_rawequal(L, -1, -2);
        lua_pop(L, 1);
        if (same) return vm->guard_kind;
    }
    if (vm->mem_refused && lua_type(L, -1) == LUA_TSTRING && strcmp(lua_tostring(L, -1), "not enough memory") == 0)
        return PERMIT_E_MEMORY;
    return PERMIT_E_RUNTIME;
}

int permit_call(lua_State *L, int nargs) {
    permit_vm *vm = getvm(L);
    int hidx = lua_gettop(L) - nargs; /* the function's slot; the handler goes there */
    lua_pushcfunction(L, msgh);
    lua_insert(L, hidx);
    vm->budget_left = vm->budget_limit;
    vm->budget_exceeded = 0;
    vm->time_exceeded = 0;
    vm->call_start_ns = vm->time_limit_ns > 0 ? now_ns() : 0;
    vm->guard_kind = 0;
    vm->mem_refused = 0;
    lua_sethook(L, count_hook, hook_mask(vm), HOOK_STEP);
    vm->limit_on = 1;
    vm->in_call = 1;
    int st = lua_pcall(L, nargs, LUA_MULTRET, hidx);
    vm->in_call = 0;
    vm->limit_on = 0;
    int kind = st == LUA_OK ? PERMIT_OK : classify(L, vm, st);
    vm->budget_exceeded = 1; /* nothing runs between calls */
    if (vm->guard_kind != 0) {
        lua_pushnil(L);
        lua_setfield(L, LUA_REGISTRYINDEX, KEY_GUARD);
    }
    lua_remove(L, hidx);
    return kind;
}

void permit_take_traceback(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, KEY_TRACEBACK);
    lua_pushnil(L);
    lua_setfield(L, LUA_REGISTRYINDEX, KEY_TRACEBACK);
}

void permit_push_source(lua_State *L, int idx) {
    lua_Debug ar;
    lua_pushvalue(L, idx);
    if (lua_type(L, -1) == LUA_TFUNCTION && lua_getinfo(L, ">S", &ar))
        lua_pushstring(L, ar.source);
    else {
        lua_pop(L, 1);
        lua_pushnil(L);
    }
}

int permit_ref(lua_State *L) { return luaL_ref(L, LUA_REGISTRYINDEX); }
void permit_unref(lua_State *L, int ref) { luaL_unref(L, LUA_REGISTRYINDEX, ref); }
int permit_push_ref(lua_State *L, int ref) { return lua_rawgeti(L, LUA_REGISTRYINDEX, ref); }

void permit_make_readonly(lua_State *L) {
    if (lua_type(L, -1) == LUA_TTABLE && !is_frozen(L, -1)) freeze_deep(L, 0);
}

size_t permit_memory_used(lua_State *L) { return getvm(L)->used; }
size_t permit_memory_peak(lua_State *L) { return getvm(L)->peak; }
void permit_collect_garbage(lua_State *L) { (void)lua_gc(L, LUA_GCCOLLECT); }
int64_t permit_instructions_used(lua_State *L) {
    permit_vm *vm = getvm(L);
    return vm->budget_limit - vm->budget_left;
}

const char *permit_trace(lua_State *L, size_t *len, int *truncated, size_t *dropped) {
    permit_vm *vm = getvm(L);
    *len = vm->trace_len;
    *truncated = vm->trace_truncated;
    *dropped = vm->trace_dropped;
    return vm->trace;
}

void permit_trace_clear(lua_State *L) {
    permit_vm *vm = getvm(L);
    vm->trace_len = 0;
    vm->trace_truncated = 0;
    vm->trace_dropped = 0;
}

typedef struct HostFn {
    permit_host_callback callback;
    void *context;
} HostFn;

static int host_trampoline(lua_State *L) {
    HostFn *h = (HostFn *)lua_touserdata(L, lua_upvalueindex(1));
    permit_vm *vm = getvm(L);
    if (!lua_checkstack(L, PERMIT_HOST_STACK)) return luaL_error(L, "stack overflow (host function)");
    int saved = vm->limit_on;
    vm->limit_on = 0;
    vm->host_error[0] = '\0';
    int n = h->callback(L, h->context); /* Swift: must not raise */
    vm->limit_on = saved;
    if (n < 0) return luaL_error(L, "%s", vm->host_error);
    return n;
}

void permit_push_host_function(lua_State *L, permit_host_callback callback, void *context) {
    HostFn *h = (HostFn *)lua_newuserdatauv(L, sizeof(HostFn), 0);
    h->callback = callback;
    h->context = context;
    lua_pushcclosure(L, host_trampoline, 1);
}

void permit_host_error(lua_State *L, const char *message) {
    permit_vm *vm = getvm(L);
    size_t n = strlen(message);
    if (n >= sizeof vm->host_error) n = sizeof vm->host_error - 1;
    memcpy(vm->host_error, message, n);
    vm->host_error[n] = '\0';
}

void permit_pop(lua_State *L, int n) { lua_pop(L, n); }
void permit_newtable(lua_State *L, int narr, int nrec) { lua_createtable(L, narr, nrec); }
const char *permit_tolstring_raw(lua_State *L, int idx, size_t *len) {
    if (lua_type(L, idx) != LUA_TSTRING) {
        *len = 0;
        return NULL;
    }
    return lua_tolstring(L, idx, len);
}
int permit_is_integer(lua_State *L, int idx) { return lua_isinteger(L, idx); }
int permit_lua_version_num(void) { return LUA_VERSION_NUM; }
