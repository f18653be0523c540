import Foundation

extension HTTPRequest {
    /// Decodes the body as JSON `T`, or throws a 400 problem that names the field at fault.
    public func decodeJSON<T: Decodable>(_ type: T.Type) throws(HTTPError) -> T {
        guard !body.isEmpty else {
            throw HTTPError(.malformedJSON, detail: "The request body is empty; send a JSON object.")
        }
        do {
            return try JSONCoding.decoder.decode(T.self, from: Data(body))
        } catch let error as DecodingError {
            throw HTTPError(.malformedJSON, detail: Self.describe(error))
        } catch {
            throw HTTPError(.malformedJSON, detail: "The body is not valid JSON.")
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let p = codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return p.isEmpty ? "the body" : "'\(p)'"
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = context.codingPath.isEmpty ? "" : " in \(path(context.codingPath))"
            return "The field '\(key.stringValue)' is missing\(parent)."
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) has the wrong type; expected \(Self.name(of: type))."
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) is null; expected \(Self.name(of: type))."
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "The body is not valid JSON." }
            return "\(path(context.codingPath)) is invalid: \(context.debugDescription)"
        @unknown default:
            return "The body does not have the expected shape."
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Double.Type, is Float.Type: return "a number"
        case is Int.Type, is Int64.Type: return "an integer"
        case is Bool.Type: return "true or false"
        default: return "\(type)".hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
