import Foundation

/// A JSON document as read from a configuration file: unlike `JSONSerialization`, it tells `true` from `1` and
/// `3` from `3.0`, so that a key can say precisely what it got.
enum JSONValue: Decodable, Equatable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? c.decode(Int.self) {
            self = .integer(n)
        } else if let x = try? c.decode(Double.self) {
            self = .number(x)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    /// The value as a setting, or nil when no key takes this shape (objects, booleans, mixed lists).
    var settingValue: SettingValue? {
        switch self {
        case .null: return .null
        case .bool: return nil
        case .integer(let n): return .integer(n)
        case .number(let x): return .number(x)
        case .string(let s): return .string(s)
        case .array(let items):
            var xs: [Double] = []
            for item in items {
                switch item {
                case .integer(let n): xs.append(Double(n))
                case .number(let x): xs.append(x)
                default: return nil
                }
            }
            return .numbers(xs)
        case .object: return nil
        }
    }

    /// A short description of what was given, for messages: `0`, `"fast"`, `an object`.
    var summary: String {
        switch self {
        case .null: "null"
        case .bool(let b): "\(b)"
        case .integer(let n): "\(n)"
        case .number(let x): SettingValue.render(x)
        case .string(let s): SettingValue.string(s).json
        case .array(let a): "a list of \(a.count)"
        case .object: "an object"
        }
    }

    /// A decoding error in words (the position JSONDecoder reports, without Swift type names).
    static func explain(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        }
        return "\(error)"
    }
}
