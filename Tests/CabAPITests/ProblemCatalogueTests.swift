import CabClient
import CabCore
import CabStore
import CabTestSupport
import Foundation
import Testing

@testable import CabAPI
@testable import CabHTTP

/// The problem catalogue is the one list of what a client can be told: each entry has a stable code and type URI,
/// and the same list is the errors section of `Public/openapi.json`, the "Problems" section of docs/api.md and
/// `CabClient.ServerProblem.Code`'s constants. The tests fail when one of them differs from the catalogue;
/// `CAB_WRITE_DOCS=1 swift test --filter ProblemCatalogueTests` rewrites all three.
@Suite struct ProblemCatalogueTests {
    static var writing: Bool { GeneratedDocSection.writing }

    @Test func codesAreUniqueAndTypesAreTheirURIs() {
        let codes = ProblemCatalogue.all.map(\.code)
        #expect(Set(codes).count == codes.count, "a code appears twice: \(codes)")
        for problem in ProblemCatalogue.all {
            #expect(problem.uri == "/problems/\(problem.code)")
            #expect(HTTPError(problem, detail: "x").response(requestID: nil).status == problem.status)
        }
    }

    /// Every code the domain raises is catalogued, with the status the table gives it.
    @Test(arguments: [
        (CoreError.Code.unknownCurrency, 400), (.invalidTariff, 400), (.illegalTransition, 409),
        (.transitionConflict, 409),
        (.notPermitted, 403), (.wrongCode, 422), (.tooEarly, 409), (.idempotencyConflict, 422), (.notFound, 404),
        (.invalidValue, 400), (.alreadyRated, 409), (.notCompleted, 409),
    ])
    func domainCodesAreCatalogued(code: CoreError.Code, status: Int) throws {
        let problem = try #require(ErrorTable.problem(for: CoreError(code, "Because.")))
        #expect(problem.code == code.name && problem.status == status && problem.detail == "Because.")
        #expect(ProblemCatalogue.byCode[code.name] != nil)
    }

    /// A store failure is the server's, never the request's: 503 with `Retry-After`, not a generic 500. A refused
    /// login while serving (a PostgreSQL password changed under a running node) answered 500 once.
    @Test(arguments: [StoreError.Code.unavailable, .closed, .database, .misconfigured])
    func storeFailuresAre503WithRetryAfter(code: StoreError.Code) throws {
        let problem = try #require(ErrorTable.problem(for: StoreError(code, "secret details")))
        #expect(problem.status == 503 && problem.code == "store_unavailable")
        #expect(Int(problem.headers["Retry-After"] ?? "") ?? 0 > 0)
        #expect(!problem.detail.contains("secret"))
    }

    @Test func aRefusedTripEventNamesTheState() throws {
        let error = CoreError.illegalTransition(.start, in: .accepted)
        let response = try #require(ErrorTable.problem(for: error)).response(requestID: "r1")
        guard case .bytes(let bytes) = response.body else {
            Issue.record("no body")
            return
        }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(json["code"] as? String == "illegal_transition")
        #expect(json["type"] as? String == "/problems/illegal_transition")
        #expect(json["current_state"] as? String == "accepted")
        #expect(json["request_id"] as? String == "r1")
    }

    /// What CabClient makes of a problem document: a typed code, the state, the retry time.
    @Test func theClientReadsTheProblemAsTyped() throws {
        let response = ProblemType.tooManyWrongCodes.error("Locked.", headers: ["Retry-After": "30"]).response(
            requestID: nil)
        guard case .bytes(let bytes) = response.body else {
            Issue.record("no body")
            return
        }
        let problem = ServerProblem(status: response.status, data: Data(bytes), retryAfter: "30")
        #expect(problem.code == .tooManyWrongCodes)
        #expect(problem.type == "/problems/too_many_wrong_codes")
        #expect(problem.retryAfterSeconds == 30)
        #expect(problem.error.problem?.code == "too_many_wrong_codes")
    }

    @Test func theCatalogueIsServed() throws {
        let h = try TripHarness()
        let all = h.call("GET", "/problems")
        #expect(all.status == 200)
        let listed = try #require(all.json["problems"] as? [[String: Any]])
        #expect(listed.compactMap { $0["code"] as? String } == ProblemCatalogue.all.map(\.code))
        let one = h.call("GET", "/problems/offer_not_open")
        #expect(one.status == 200 && one.string("title") == "No open offer" && one.json["status"] as? Int == 409)
        #expect(h.call("GET", "/problems/no_such_problem").status == 404)
    }

    // MARK: The catalogue written out

    static func camelCase(_ code: String) -> String {
        let words = code.split(separator: "_")
        return words.enumerated().map { i, w in i == 0 ? String(w) : w.prefix(1).uppercased() + w.dropFirst() }.joined()
    }

    static func clientSource() -> String {
        var lines = [
            "// Written by ProblemCatalogueTests from the server's problem catalogue (CabAPI/ProblemCatalogue.swift);",
            "// `CAB_WRITE_DOCS=1 swift test --filter ProblemCatalogueTests` rewrites it.",
            "",
            "extension ServerProblem.Code {",
        ]
        for p in ProblemCatalogue.all {
            lines.append("    /// \(p.status) \(p.title): \(p.summary)")
            lines.append("    public static let \(camelCase(p.code)): Self = \"\(p.code)\"")
        }
        lines.append("")
        lines.append("    /// Every code this SDK knows, in the server's catalogue order.")
        lines.append("    public static let known: [Self] = [")
        for p in ProblemCatalogue.all { lines.append("        .\(camelCase(p.code)),") }
        lines.append("    ]")
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    static func markdown() -> String {
        var lines = ["| code | status | title | when |", "| --- | --- | --- | --- |"]
        for p in ProblemCatalogue.all {
            lines.append(
                "| `\(p.code)` | \(p.status) | \(p.title) | \(p.summary.replacingOccurrences(of: "|", with: "\\|")) |")
        }
        return lines.joined(separator: "\n")
    }

    /// The Problem schema's `code` member: an enum of every code, each described in `x-problems`.
    static func openAPICodeMember(indent: String) -> String {
        func q(_ s: String) -> String {
            // a string always encodes
            let data = try! JSONSerialization.data(withJSONObject: [s], options: [.withoutEscapingSlashes])
            return String(decoding: data, as: UTF8.self).dropFirst().dropLast().description
        }
        var out = "\"code\": {\n"
        out += indent + " \"type\": \"string\",\n"
        out +=
            indent
            + " \"description\": \"machine-readable reason; the problem's type is /problems/{code}, and GET /problems lists them\",\n"
        out += indent + " \"enum\": [\n"
        out += ProblemCatalogue.all.map { indent + "  " + q($0.code) }.joined(separator: ",\n") + "\n"
        out += indent + " ],\n"
        out += indent + " \"x-problems\": [\n"
        out +=
            ProblemCatalogue.all.map { p in
                indent
                    + "  {\"code\": \(q(p.code)), \"status\": \(p.status), \"title\": \(q(p.title)), \"summary\": \(q(p.summary))}"
            }.joined(separator: ",\n") + "\n"
        out += indent + " ]\n"
        out += indent + "}"
        return out
    }

    @Test func clientCodesAreTheCatalogues() throws {
        let url = TestData.repositoryRoot.appendingPathComponent("Sources/CabClient/ServerProblem+Codes.swift")
        let source = Self.clientSource()
        if Self.writing { try source.write(to: url, atomically: true, encoding: .utf8) }
        #expect(
            try String(contentsOf: url, encoding: .utf8) == source,
            "CabClient's problem codes differ from the catalogue")
        #expect(ServerProblem.Code.known.map(\.rawValue) == ProblemCatalogue.all.map(\.code))
    }

    @Test func apiDocsListTheCatalogue() throws {
        let matches = try GeneratedDocSection.matches(
            Self.markdown(), in: "docs/api.md", begin: "<!-- problems:begin (written by ProblemCatalogueTests) -->\n",
            end: "\n<!-- problems:end -->")
        #expect(matches, "docs/api.md's problem table differs from the catalogue")
    }

    @Test func openAPIListsTheCatalogue() throws {
        let url = TestData.repositoryRoot.appendingPathComponent("Public/openapi.json")
        var text = try String(contentsOf: url, encoding: .utf8)
        let indent = "     "
        if Self.writing {
            // Replace the Problem schema's `code` member (from its key to the matching closing brace).
            let schema = try #require(text.range(of: "\"Problem\": {"))
            let key = try #require(text.range(of: "\"code\": {", range: schema.upperBound..<text.endIndex))
            var depth = 0
            var end = key.upperBound
            for i in text[key.lowerBound...].indices {
                if text[i] == "{" { depth += 1 }
                if text[i] == "}" {
                    depth -= 1
                    if depth == 0 {
                        end = text.index(after: i)
                        break
                    }
                }
            }
            text.replaceSubrange(key.lowerBound..<end, with: Self.openAPICodeMember(indent: indent))
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let components = try #require(document["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: Any])
        let problem = try #require(schemas["Problem"] as? [String: Any])
        let properties = try #require(problem["properties"] as? [String: Any])
        let code = try #require(properties["code"] as? [String: Any])
        #expect(code["enum"] as? [String] == ProblemCatalogue.all.map(\.code), "openapi.json's problem codes differ")
        let described = (code["x-problems"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        #expect(described == ProblemCatalogue.all.map(\.code))
    }
}
