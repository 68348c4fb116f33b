import Foundation
import PermitInput

extension Weighted<TimeZone> {
    /// A share per IANA time zone (`{ Europe/Berlin: 0.5, America/New_York: 0.5 }`): `travel`'s
    /// destinations and `home_zones`. Names are checked against the system's zone database.
    static func zones(_ node: YAMLValue) throws(InputError) -> Weighted<TimeZone> {
        var pairs: [(TimeZone, Double, YAMLValue)] = []
        for (name, value) in try node.table() {
            guard name.contains("/") || name == "UTC", let zone = TimeZone(identifier: name) else {
                throw node.child(name, value.node).error(
                    "\"\(name)\" is not an IANA time zone", hint: "write e.g. Europe/Berlin, America/New_York, Asia/Tokyo")
            }
            pairs.append((zone, try value.probability(), value))
        }
        return try Weighted(pairs, at: node)
    }
}
