import Foundation
import PermitCore
import Testing

@testable import PermitDelivery

/// A bundle's `params.json` must say one thing: a key given twice in one object is refused
/// with its line, since which of the two values applies would depend on the JSON decoder.
@Suite struct BundleParamsTests {
    let key = BundleSigningKey()

    func verify(_ params: String) throws -> VerifiedBundle {
        try PolicyBundle(data: bundle(1, taggedPolicy("a"), key: key, params: params))
            .verify(trust: .keys([key.publicKey]), now: start)
    }

    @Test(arguments: [
        ("{\n  \"gap\": 1,\n  \"gap\": 30\n}", "gap", 3, 2),
        ("{\"copy\": {\"en\": \"Hi\",\n \"fr\": \"Salut\",\n \"en\": \"Yo\"}}", "copy.en", 3, 1),
        ("{\"a\": 1, \"\\u0061\": 2}", "a", 1, 1),
        ("{\"list\": [{\"x\": 1}, {\"x\": 2, \n\"x\": 3}]}", "list[].x", 2, 1),
    ])
    func aKeyGivenTwiceIsRefusedWithItsLine(params: String, path: String, line: Int, firstLine: Int) throws {
        let error = expectRefusal(.policyInvalid) { _ = try verify(params) }
        #expect(error?.message.hasPrefix("params.json:\(line): the key \"\(path)\" is given twice (first at line \(firstLine))") == true)
    }

    @Test func equalKeysInDifferentObjectsAndEscapedTextAreFine() throws {
        let verified = try verify(
            """
            {"a": {"x": 1}, "b": {"x": 2}, "list": [{"x": 1}, {"x": 2}], "t": "\\"a\\": 1, \\"a\\"", "é": 1, "\\u00e9x": 2}
            """)
        #expect(verified.params["a"] == .table(["x": .integer(1)]))
        #expect(verified.params.count == 6)
    }

    @Test func unbalancedParamsAreRefusedNotTrapped() throws {
        for params in ["}", "]]", "{\"a\": 1}}", "[", "\"open"] {
            let error = expectRefusal(.policyInvalid) { _ = try verify(params) }
            #expect(error?.message == "params.json is not a JSON object of params")
        }
    }
}
