/* Permit's own Lua on Linux, when the trait LuaFromSource asks for it: this target declares
   nothing and depends on CPermitLua, so that a target depending on it compiles and links the Lua
   that Apple platforms always get. It exists because a dependency's condition is a set of
   platforms and traits that must all hold, never one or the other, and a second declaration of
   the same dependency is ignored: Apple's build depends on CPermitLua with no trait, Linux's on
   this target with the trait. */
#ifndef PERMIT_LUA_FROM_SOURCE_H
#define PERMIT_LUA_FROM_SOURCE_H
#endif
