import Foundation
import Testing

@testable import CabHTTP

@Suite struct JSONValueTests {
    private func parse(_ text: String) throws -> JSONValue { try JSONValue(parsing: Array(text.utf8)) }

    @Test func parsesEveryKindOfValue() throws {
        let value = try parse(#" {"a": [1, -2.5e3, true, false, null], "b": {"c": "d"}, "e": 0} "#)
        #expect(value["a"] == .array([.number(1), .number(-2500), .bool(true), .bool(false), .null]))
        #expect(value["b"]?["c"] == .string("d"))
        #expect(value["e"] == .number(0))
        #expect(value["missing"] == nil)
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let value = try parse(#"["a\"b\\c\/d\n\t\r\b\f", "\u00e4\u20ac", "\ud83d\ude95", "plain äö"]"#)
        #expect(
            value == .array([.string("a\"b\\c/d\n\t\r\u{08}\u{0C}"), .string("ä€"), .string("🚕"), .string("plain äö")]))
    }

    @Test func agreesWithFoundationOnNumbers() throws {
        for text in [
            "0", "-0", "60.1699", "24.93840000000001", "1e-7", "123456789012345678", "2.2250738585072014e-308",
        ] {
            let ours = try parse(text)
            let theirs =
                try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed) as? NSNumber
            #expect(ours == .number(theirs?.doubleValue ?? .nan), "\(text)")
        }
    }

    @Test(arguments: [
        "", " ", "{", "[1,]", "{\"a\":1,}", "{a:1}", "01", "1.", ".5", "-", "1e", "+1", "NaN", "Infinity", "1e999",
        "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"tab\there\"", "[1 2]", "{\"a\" 1}", "tru",
        "nul", "1 2", "[1]x",
    ])
    func refusesWhatIsNotJSON(text: String) {
        #expect(throws: JSONSyntaxError.self) { try parse(text) }
    }

    @Test func refusesInvalidUTF8InStrings() {
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: [0x22, 0xFF, 0xFE, 0x22]) }
        #expect(throws: JSONSyntaxError.self) { try JSONValue(parsing: [0x22, 0x5C, 0x6E, 0xC3, 0x22]) }
    }

    @Test func refusesDeepNestingWithoutRecursingForever() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try parse(deep) }
        let fine = String(repeating: "[", count: 50) + String(repeating: "]", count: 50)
        _ = try parse(fine)
    }

    @Test func aRepeatedKeyKeepsTheLastValue() throws {
        #expect(try parse(#"{"a": 1, "a": 2}"#)["a"] == .number(2))
    }

    @Test func errorsSayWhere() {
        do throws(JSONSyntaxError) {
            _ = try JSONValue(parsing: Array(#"{"a": [1, 2,, 3]}"#.utf8))
            Issue.record("parsed")
        } catch {
            #expect(error.offset == 12)
        }
    }
}

@Suite struct JSONBodyTests {
    struct Point: JSONBodyDecodable {
        var lat: Double
        var name: String?
        var count: Int64?
        init(json: JSONField) throws(HTTPError) {
            lat = try json.required("lat").double()
            name = try json.optional("name")?.string()
            count = try json.optional("count")?.int64()
        }
    }

    struct Trip: JSONBodyDecodable {
        var points: [Point]
        init(json: JSONField) throws(HTTPError) {
            var points: [Point] = []
            for element in try json.required("points").elements() { points.append(try Point(json: element)) }
            self.points = points
        }
    }

    private func detail(_ body: String) -> String? {
        let request = HTTPRequest(method: "POST", path: "/", body: Array(body.utf8))
        do {
            _ = try request.decodeJSONBody(Trip.self)
            return nil
        } catch {
            #expect(error.status == 400)
            return error.detail
        }
    }

    @Test func readsFieldsAndLeavesOptionalsNil() throws {
        let request = HTTPRequest(
            method: "POST", path: "/",
            body: Array(#"{"points": [{"lat": 1.5, "name": null}, {"lat": 2, "count": 7}]}"#.utf8))
        let trip = try request.decodeJSONBody(Trip.self)
        #expect(trip.points.map(\.lat) == [1.5, 2])
        #expect(trip.points[0].name == nil && trip.points[1].count == 7)
    }

    @Test func problemsNameTheFieldAsDecodeJSONDoes() {
        #expect(detail("") == "The request body is empty; send a JSON object.")
        #expect(detail("[1]") == "the body has the wrong type; expected an object.")
        #expect(detail("{}") == "The field 'points' is missing.")
        #expect(detail(#"{"points": {}}"#) == "'points' has the wrong type; expected an array.")
        #expect(detail(#"{"points": [{}]}"#) == "The field 'lat' is missing in 'points.[0]'.")
        #expect(detail(#"{"points": [{"lat": "x"}]}"#) == "'points.[0].lat' has the wrong type; expected a number.")
        #expect(detail(#"{"points": [{"lat": null}]}"#) == "'points.[0].lat' is null; give a value.")
        #expect(
            detail(#"{"points": [{"lat": 1, "count": 1.5}]}"#)
                == "'points.[0].count' has the wrong type; expected an integer.")
        #expect(detail(#"{"points": [{"lat": 1,}]}"#)?.hasPrefix("The body is not valid JSON") == true)
    }
}

@Suite struct BearerTokenTests {
    private func token(_ header: String?) -> String? {
        HTTPRequest(method: "GET", path: "/", headers: header.map { ["authorization": $0] } ?? [:]).bearerToken
    }

    @Test func readsTheTokenInAnyCaseOfTheScheme() {
        #expect(token("Bearer abc") == "abc")
        #expect(token("bearer abc") == "abc")
        #expect(token("BEARER  abc \t") == "abc")
        #expect(token("Bearer  ") == "")
        #expect(token("Basic abc") == nil)
        #expect(token("Bearer") == nil)
        #expect(token("Bearerabc") == nil)
        #expect(token(nil) == nil)
    }
}

@Suite struct JSONStringTests {
    /// Both forms escape exactly as `JSONEncoder` does, and the byte form equals the text form.
    @Test func escapesLikeJSONEncoderInTextAndInBytes() throws {
        let samples = [
            "plain", "quote \" and \\ back", "lines\n\r\t\u{08}\u{0C}", "\u{01}\u{1F}", "Käpylä 🚕 €", "", "/a/b",
        ]
        for sample in samples {
            var text = ""
            JSONString.append(sample, to: &text)
            var bytes: [UInt8] = []
            JSONString.append(sample, to: &bytes)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            let expected = String(decoding: try encoder.encode(sample), as: UTF8.self)
            #expect(text == expected, "\(sample)")
            #expect(String(decoding: bytes, as: UTF8.self) == expected, "\(sample)")
        }
    }
}

@Suite struct JSONLineTests {
    /// Durations in log lines read as Swift prints the rounded `Double`, whatever the value.
    @Test func millisecondsReadAsSwiftPrintsThem() {
        var generator = SystemRandomNumberGenerator()
        var samples: [Double] = [0, 3, 12.5, 0.042, 0.0004, 0.0005, 999.9995, 1e9, 2.5e12, -1.25, 0.001, 7.1]
        for _ in 0..<5_000 { samples.append(Double.random(in: 0..<2_000, using: &generator)) }
        for _ in 0..<1_000 { samples.append(Double.random(in: 0..<0.01, using: &generator)) }
        for d in samples {
            var out = ""
            JSONLine.appendMilli(d, to: &out)
            #expect(out == String((d * 1000).rounded() / 1000), "\(d)")
        }
        var infinite = ""
        JSONLine.appendMilli(.infinity, to: &infinite)
        #expect(infinite == "null")
    }

    @Test func timestampsAreRFC3339WithMilliseconds() throws {
        let stamp = JSONLine.timestamp()
        #expect(stamp.utf8.count == 24)
        #expect(stamp.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil, "\(stamp)")
        let year = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).year!
        #expect(stamp.hasPrefix(String(year)) || stamp.hasPrefix(String(year - 1)))
    }
}
