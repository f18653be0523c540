import CabTestSupport
import Foundation
import Testing

/// `cab check-dispatch` against a real PostgreSQL, as an operator runs it after a chaos run.
@Suite struct CheckDispatchCommandTests {
    @Test func printsZerosOnACleanCityAndExitsOneNamingTheTripWhenADeadlineWasMissed() throws {
        let database = try SharedPostgres.freshDatabase()
        let migrated = try CabProcess.run(["migrate", "--postgres", database])
        #expect(migrated.status == 0, "\(migrated.standardError)")
        let clean = try CabProcess.run(["check-dispatch", "--postgres", database])
        #expect(clean.status == 0, "\(clean.standardError)")
        #expect(
            clean.standardOutput.split(separator: "\n") == [
                "double assignments: 0", "drivers with two open offers: 0", "drivers with two open trips: 0",
                "writes under a stale fence: 0", "trips past their deadline: 0", "dispatch invariants hold",
            ])

        // A trip still dispatching whose deadline passed an hour ago, written under a fence never granted.
        let psql = try PSQL(conninfo: database)
        try psql.run(
            """
            INSERT INTO riders (id, name, created_ms) VALUES ('ri_0000000000000000', 'Rider', 0);
            INSERT INTO bookings (id, shard, rider_id, pickup_lat, pickup_lon, dropoff_lat, dropoff_lon,
                route_distance_m, route_duration_s, currency, fare_estimate_minor, status, created_ms,
                status_changed_ms, pin)
            VALUES ('bk_0000000000000000', 0, 'ri_0000000000000000', 60.17, 24.94, 60.18, 24.95, 1000, 300, 'EUR',
                500, 'dispatching', 0, 0, '1234');
            INSERT INTO dispatch_deadlines (booking_id, shard, kind, due_at, fence, written_at, generation)
            VALUES ('bk_0000000000000000', 0, 'offer_timeout', now() - interval '1 hour', 1, now(), 1);
            """)
        let broken = try CabProcess.run(["check-dispatch", "--postgres", database, "--grace-seconds", "30"])
        #expect(broken.status == 1)
        #expect(broken.standardOutput.contains("trips past their deadline: 1 (bk_0000000000000000)"))
        #expect(broken.standardOutput.contains("writes under a stale fence: 1 (bk_0000000000000000)"))
        #expect(broken.standardOutput.contains("double assignments: 0"))
        #expect(broken.standardOutput.contains("DISPATCH INVARIANTS BROKEN"))

        let noURL = try CabProcess.run(["check-dispatch"], environment: ["CAB_POSTGRES_URL": ""])
        #expect(noURL.status == 64)
        #expect(noURL.standardError.contains("--postgres"))
    }
}

/// `psql` on a test database, for rows a test writes directly.
struct PSQL {
    struct Failure: Error { let message: String }
    let conninfo: String
    let binary: URL

    init(conninfo: String) throws {
        self.conninfo = conninfo
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted {
            (Int($0) ?? 0) > (Int($1) ?? 0)
        }
        guard let version = versions.first else {
            throw Failure(message: "no PostgreSQL client under /usr/lib/postgresql")
        }
        binary = root.appendingPathComponent(version).appendingPathComponent("bin/psql")
    }

    func run(_ sql: String) throws {
        _ = try query(sql)
    }

    /// The rows `sql` returns, unaligned: one line per row, columns split by `|`.
    func query(_ sql: String) throws -> String {
        let result = try CabProcess.run(
            executable: binary, ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", conninfo, "-c", sql])
        guard result.status == 0 else { throw Failure(message: "psql failed: \(result.standardError)") }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
