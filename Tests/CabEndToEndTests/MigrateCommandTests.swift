import CabTestSupport
import Foundation
import Testing

/// `cab migrate` against a real PostgreSQL, as an operator runs it.
@Suite struct MigrateCommandTests {
    @Test func migratesOnceAndNamesABadLoginOrAMissingCity() throws {
        let server = try PostgresTestServer()
        defer { server.stop() }
        let first = try CabProcess.run(["migrate", "--postgres", server.conninfo])
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains("applied migrations 1"))
        let again = try CabProcess.run(["migrate", "--postgres", server.conninfo])
        #expect(again.standardOutput.contains("schema up to date"))

        let badLogin = try CabProcess.run([
            "migrate", "--postgres", server.conninfo(database: "postgres", password: "wrong"),
        ])
        #expect(badLogin.status == 64)
        #expect(badLogin.standardError.contains("password authentication failed"))
        let noCity = try CabProcess.run(["migrate", "--postgres", server.conninfo, "--from", "/nonexistent/city"])
        #expect(noCity.status == 66)
        let noURL = try CabProcess.run(["migrate"])
        #expect(noURL.status == 64)
        #expect(noURL.standardError.contains("--postgres"))
    }
}
