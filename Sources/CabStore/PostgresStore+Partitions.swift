import CabCore
import CabPostgres

/// Location history partitioned by day: `driver_locations` is `PARTITION BY RANGE (time_ms)`, one partition
/// `driver_locations_pYYYYMMDD` per UTC day holding `[day start, next day start)`, and
/// `driver_locations_default` for any row whose day has no partition yet.
///
/// The store makes yesterday's, today's and `locationPartitionsAhead` days' partitions when it opens and again
/// on the first location write of each new day; with `locationRetentionDays` set, the same upkeep drops the
/// partitions (and default rows) of days older than that, a whole day at a time, with no `DELETE` of rows. Two
/// nodes doing the upkeep at once are fine: whichever makes or drops a partition first wins, the other sees it.
extension PostgresStore {
    /// Milliseconds in a day.
    static let dayMilliseconds: Int64 = 86_400_000

    /// What one upkeep changed.
    public struct PartitionUpkeep: Sendable, Equatable {
        /// Partitions made.
        public var made: [String]
        /// Partitions dropped by retention.
        public var dropped: [String]
    }

    /// The day partitions of `driver_locations` that exist, oldest first.
    public func locationPartitions() throws -> [String] {
        try read { c in try Self.partitionNames(on: c) }
    }

    /// Makes the partitions from yesterday to `locationPartitionsAhead` days ahead of `now` and, with a
    /// retention, drops the days before it (see the type's comment).
    @discardableResult
    public func maintainLocationPartitions(now: Instant? = nil) throws -> PartitionUpkeep {
        let today = Self.day(of: now ?? configuration.wallClock())
        var upkeep = PartitionUpkeep(made: [], dropped: [])
        let existing = Set(try locationPartitions())
        for day in (today - 1)...(today + Int64(configuration.locationPartitionsAhead)) {
            let name = Self.partitionName(day: day)
            guard !existing.contains(name) else { continue }
            if try makePartition(day: day) { upkeep.made.append(name) }
        }
        if let keep = configuration.locationRetentionDays {
            let firstKept = today - Int64(keep) + 1
            for name in existing.sorted() {
                guard let day = Self.partitionDay(name), day < firstKept else { continue }
                // The name was made by `partitionName` (digits only) and read back from the catalogue.
                try read { c in try c.execute("DROP TABLE IF EXISTS \(name)") }
                upkeep.dropped.append(name)
            }
            try read { c in
                try c.query(
                    "DELETE FROM driver_locations_default WHERE time_ms < $1", [firstKept * Self.dayMilliseconds])
            }
        }
        maintainedDay.withLock { $0 = max($0, today) }
        return upkeep
    }

    /// The upkeep, when this store has not run it yet today.
    func maintainLocationPartitionsIfNewDay() throws {
        let today = Self.day(of: configuration.wallClock())
        guard maintainedDay.withLock({ $0 < today }) else { return }
        try maintainLocationPartitions()
    }

    /// Makes one day's partition, moving in the rows the default partition holds for that day; false when
    /// another node made it first.
    private func makePartition(day: Int64) throws -> Bool {
        let name = Self.partitionName(day: day)
        let from = day * Self.dayMilliseconds
        let to = from + Self.dayMilliseconds
        do {
            try read { c in
                try c.transaction { tx in
                    // DDL takes no parameters: the name and bounds are made here from the day number.
                    try tx.execute(
                        "CREATE TABLE \(name) (LIKE driver_locations INCLUDING DEFAULTS INCLUDING CONSTRAINTS)")
                    try tx.query(
                        "WITH moved AS (DELETE FROM driver_locations_default WHERE time_ms >= $1 AND time_ms < $2 "
                            + "RETURNING driver_id, time_ms, lat, lon, accuracy_m, speed_mps, heading_deg) "
                            + "INSERT INTO \(name) SELECT * FROM moved",
                        [from, to])
                    try tx.execute(
                        "ALTER TABLE driver_locations ATTACH PARTITION \(name) FOR VALUES FROM (\(from)) TO (\(to))")
                }
            }
            return true
        } catch let error as StoreError {
            // Another node made it at the same moment: its table (42P07, or 23505 / 42710 on the table's row type
            // when both creations race in the catalogue) or its bounds (42P17) are there already.
            guard let pg = error.underlying as? PostgresError,
                [
                    PostgresError.Code("42P07"), .uniqueViolation, PostgresError.Code("42710"),
                    PostgresError.Code("42P17"),
                ]
                .contains(pg.code)
            else { throw error }
            return false
        }
    }

    static func partitionNames(on c: PostgresConnection) throws -> [String] {
        try c.query(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
                + "WHERE i.inhparent = to_regclass($1) ORDER BY c.relname",
            ["driver_locations"]
        ).rows.compactMap { $0.string(0) }.filter { partitionDay($0) != nil }
    }

    /// Days since 1970-01-01 (UTC) of an instant.
    static func day(of instant: Instant) -> Int64 {
        let ms = instant.millisecondsSinceEpoch
        return ms >= 0 ? ms / dayMilliseconds : (ms - dayMilliseconds + 1) / dayMilliseconds
    }

    /// `driver_locations_p20261201` for the day that starts 2026-12-01T00:00Z.
    static func partitionName(day: Int64) -> String {
        // RFC 3339 starts with the date, `2026-12-01T...`; years 0-9999 print as four digits.
        let date = RFC3339.format(Instant(millisecondsSinceEpoch: day * dayMilliseconds)).prefix(10)
        return "driver_locations_p" + date.filter { $0 != "-" }
    }

    /// The day of a partition's name; nil for any other table.
    static func partitionDay(_ name: String) -> Int64? {
        let prefix = "driver_locations_p"
        guard name.hasPrefix(prefix) else { return nil }
        let digits = Array(name.dropFirst(prefix.count))
        guard digits.count == 8, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return nil }
        let text = "\(String(digits[0..<4]))-\(String(digits[4..<6]))-\(String(digits[6..<8]))T00:00:00Z"
        return RFC3339.parse(text).map { day(of: $0) }
    }
}
