/* The sandbox's string functions: a budget-charged pattern matcher (find, match, gmatch,
   gsub) and a size-capped string.rep. */
#include "shim_internal.h"
#include <lauxlib.h>
#include <ctype.h>
#include <string.h>

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
        if (--(ms)->vm->budget_left < 0) shim_budget_fail((ms)->L, (ms)->vm, "pattern matching");           \
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
        shim_charge(ms->L, ms->vm, 1 + len / 32, "pattern matching");
        if (memcmp(ms->cap[l].init, s, len) == 0) return s + len;
    }
    return NULL;
}

static const char *pm_match(MS *ms, const char *s, const char *p) {
    if (ms->depth-- == 0) shim_raise_guard(ms->L, PERMIT_E_PATTERN, "pattern too complex (recursion limit reached)");
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
        shim_raise_guard(L, PERMIT_E_PATTERN, "pattern subject too long (%I bytes; the limit is %I)", (LUAI_UACINT)ls,
                    (LUAI_UACINT)vm->max_subject);
    if (lp > vm->max_pattern)
        shim_raise_guard(L, PERMIT_E_PATTERN, "pattern too long (%I bytes; the limit is %I)", (LUAI_UACINT)lp,
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
        shim_charge(L, vm, 1 + l2 / 32, "string.find");
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

int shim_find(lua_State *L) { return str_find_aux(L, 1); }
int shim_match(lua_State *L) { return str_find_aux(L, 0); }

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

int shim_gmatch(lua_State *L) {
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
        shim_raise_guard(ms->L, PERMIT_E_STRING_SIZE, "string.gsub: resulting string too large (the limit is %I bytes)",
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

int shim_gsub(lua_State *L) {
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

int shim_rep(lua_State *L) {
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
        return shim_raise_guard(L, PERMIT_E_STRING_SIZE, "string.rep: resulting string too large (the limit is %I bytes)",
                           (LUAI_UACINT)max);
    shim_charge(L, vm, 1 + total / 64, "string.rep");
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
