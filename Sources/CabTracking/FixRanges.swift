/// The numbers a fix may carry. A value outside these ranges is a client bug (or an attack), not a position:
/// the API refuses it with a problem that names the field, and the ingestion rules drop it as `invalid` should
/// one arrive by another path. Nothing downstream (the index, the store, the stream) ever sees it, so no
/// conversion to an integer can trap on it.
public enum FixRanges {
    /// The earliest time a fix may carry: 2000-01-01T00:00:00Z. Earlier means a device clock that was never set
    /// (year 1, 1970) or a negative timestamp.
    public static let earliestTimeMilliseconds: Int64 = 946_684_800_000
    /// The first time a fix may no longer carry: 2100-01-01T00:00:00Z. Between "now" and this, a fix is dropped
    /// as from the future (counted); beyond it, refused.
    public static let endTimeMilliseconds: Int64 = 4_102_444_800_000
    /// The fastest speed a fix may report: 150 m/s (540 km/h), far above any car, far below a broken number.
    public static let maximumSpeedMetersPerSecond = 150.0
    /// The widest accuracy radius a fix may report (the ingestion rules drop anything above their threshold).
    public static let maximumAccuracyMeters = 1_000_000.0

    /// One field of a fix.
    public enum Field: String, Sendable, Hashable, CaseIterable {
        case time, accuracy, speed, heading, sequence
    }

    /// A field outside its range and the range it must be in, worded for a client.
    public struct Violation: Sendable, Hashable {
        /// The field.
        public var field: Field
        /// The range, as a phrase: "from 0 up to (not including) 360 degrees".
        public var allowed: String
    }

    /// The first field of `fix` outside its range; nil when every number is in range. The coordinate is not
    /// checked here: an invalid coordinate is dropped (and counted) by the ingestion rules.
    public static func violation(in fix: LocationFix) -> Violation? {
        let time = fix.timeMilliseconds
        if time < earliestTimeMilliseconds || time >= endTimeMilliseconds {
            return Violation(field: .time, allowed: "a time from 2000-01-01 to 2099-12-31 (UTC)")
        }
        if !(fix.accuracyMeters.isFinite && fix.accuracyMeters >= 0 && fix.accuracyMeters <= maximumAccuracyMeters) {
            return Violation(field: .accuracy, allowed: "from 0 to \(Int(maximumAccuracyMeters)) metres")
        }
        if let v = fix.speedMetersPerSecond, !(v.isFinite && v >= 0 && v <= maximumSpeedMetersPerSecond) {
            return Violation(field: .speed, allowed: "from 0 to \(Int(maximumSpeedMetersPerSecond)) m/s")
        }
        if let h = fix.headingDegrees, !(h.isFinite && h >= 0 && h < 360) {
            return Violation(field: .heading, allowed: "from 0 up to (not including) 360 degrees clockwise from north")
        }
        if let s = fix.sequence, s < 0 {
            return Violation(field: .sequence, allowed: "a whole number from 0")
        }
        return nil
    }
}
