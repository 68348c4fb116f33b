import Testing

@testable import PermitLua

@Test func linksLua54() { #expect(luaVersionNumber == 504) }
