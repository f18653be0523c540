import ArgumentParser
import CabGeo

extension Coordinate {
    /// Parses `LAT,LON` given as `what` (`--from`), or throws a usage error (exit 64) that says what to fix.
    static func parsed(_ text: String, what: String) throws(ValidationError) -> Coordinate {
        guard let c = Coordinate(parsing: text) else {
            throw ValidationError("\(what) must be LAT,LON in decimal degrees (e.g. 60.1699,24.9384), not '\(text)'")
        }
        guard c.isValid else {
            throw ValidationError(
                "\(what) is out of range: latitude must be -90...90 and longitude -180...180 ('\(text)')")
        }
        return c
    }
}
