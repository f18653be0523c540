/// A request body read from a `JSONValue` by hand, with 400 problems worded as `decodeJSON`'s (the field's path,
/// what is missing or what type was expected), for the endpoints where `JSONDecoder` showed in profiles.
public protocol JSONBodyDecodable {
    /// Reads the body from its top-level value.
    init(json: JSONField) throws(HTTPError)
}

extension HTTPRequest {
    /// Parses the body and reads `T` from it, or throws a 400 problem that says what to fix.
    public func decodeJSONBody<T: JSONBodyDecodable>(_ type: T.Type) throws(HTTPError) -> T {
        guard !body.isEmpty else {
            throw HTTPError(.malformedJSON, detail: "The request body is empty; send a JSON object.")
        }
        let value: JSONValue
        do {
            value = try JSONValue(parsing: body)
        } catch {
            throw HTTPError(
                .malformedJSON, detail: "The body is not valid JSON (\(error.reason) at byte \(error.offset)).")
        }
        return try T(json: JSONField(value: value, path: []))
    }
}

/// A value inside a request body and where it is (`fixes.[0].lat`), for errors that name the field.
public struct JSONField: Sendable {
    /// One step of a path: a member name or an array index.
    public enum Step: Sendable {
        case key(String)
        case index(Int)
    }

    /// The value.
    public let value: JSONValue
    /// Where it is, from the top of the body.
    public let path: [Step]

    /// A field at `path`.
    public init(value: JSONValue, path: [Step]) {
        self.value = value
        self.path = path
    }

    /// The path as problems write it: `'pickup.lat'`, `'fixes.[0]'`, or "the body" at the top.
    public var pathDescription: String {
        if path.isEmpty { return "the body" }
        let text = path.map { step -> String in
            switch step {
            case .key(let name): name
            case .index(let i): "[\(i)]"
            }
        }.joined(separator: ".")
        return "'\(text)'"
    }

    /// A 400 "wrong type" problem for this field.
    public func wrongType(expected: String) -> HTTPError {
        HTTPError(.malformedJSON, detail: "\(pathDescription) has the wrong type; expected \(expected).")
    }

    /// A 400 problem saying this field's value is invalid, and why.
    public func invalid(_ why: String) -> HTTPError {
        HTTPError(.malformedJSON, detail: "\(pathDescription) is invalid: \(why)")
    }

    /// This field as an object's members, or a "wrong type" problem.
    public func members() throws(HTTPError) -> [JSONMember] {
        guard case .object(let members) = value else { throw wrongType(expected: "an object") }
        return members
    }

    /// The member `key` of this object; nil when absent or null. Throws when this is not an object.
    public func optional(_ key: String) throws(HTTPError) -> JSONField? {
        let members = try members()
        guard let member = members.last(where: { $0.key == key }), member.value != .null else { return nil }
        return JSONField(value: member.value, path: path + [.key(key)])
    }

    /// The member `key` of this object; nil when absent, a problem when null (for fields that are either left
    /// out or given, never "unknown").
    public func nonNull(_ key: String, expected: String) throws(HTTPError) -> JSONField? {
        let members = try members()
        guard let member = members.last(where: { $0.key == key }) else { return nil }
        let field = JSONField(value: member.value, path: path + [.key(key)])
        guard member.value != .null else {
            throw HTTPError(
                .malformedJSON, detail: "\(field.pathDescription) is null; leave it out or give \(expected).")
        }
        return field
    }

    /// A 400 problem saying the member `key` of this object is outside the range it must be in.
    public func outOfRange(_ key: String, allowed: String) -> HTTPError {
        let field = JSONField(value: value[key] ?? .null, path: path + [.key(key)])
        return HTTPError(.valueOutOfRange, detail: "\(field.pathDescription) is out of range; it must be \(allowed).")
    }

    /// The member `key` of this object, or a problem saying it is missing (or null).
    public func required(_ key: String) throws(HTTPError) -> JSONField {
        let members = try members()
        guard let member = members.last(where: { $0.key == key }) else {
            let parent = path.isEmpty ? "" : " in \(pathDescription)"
            throw HTTPError(.malformedJSON, detail: "The field '\(key)' is missing\(parent).")
        }
        let field = JSONField(value: member.value, path: path + [.key(key)])
        guard member.value != .null else {
            throw HTTPError(.malformedJSON, detail: "\(field.pathDescription) is null; give a value.")
        }
        return field
    }

    /// This field as a number.
    public func double() throws(HTTPError) -> Double {
        guard case .number(let x) = value else { throw wrongType(expected: "a number") }
        return x
    }

    /// This field as a whole number that fits in 64 bits (exactly representable: within ±2^53).
    public func int64() throws(HTTPError) -> Int64 {
        guard case .number(let x) = value else { throw wrongType(expected: "an integer") }
        guard x == x.rounded(), abs(x) <= 9_007_199_254_740_992 else { throw wrongType(expected: "an integer") }
        return Int64(x)
    }

    /// This field as a string.
    public func string() throws(HTTPError) -> String {
        guard case .string(let s) = value else { throw wrongType(expected: "a string") }
        return s
    }

    /// This field as an array of fields.
    public func elements() throws(HTTPError) -> [JSONField] {
        guard case .array(let values) = value else { throw wrongType(expected: "an array") }
        var fields: [JSONField] = []
        fields.reserveCapacity(values.count)
        for (i, element) in values.enumerated() { fields.append(JSONField(value: element, path: path + [.index(i)])) }
        return fields
    }
}
