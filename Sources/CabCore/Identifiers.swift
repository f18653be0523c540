/// A typed identifier: a fixed prefix and sixteen Crockford base32 symbols (80 random bits), e.g. `bk_7m2k...`.
///
/// Every account and booking id in SwiftCab has this shape, so ids of different kinds never mix up in code
/// (distinct types) or in logs (distinct prefixes).
public protocol PrefixedIdentifier: Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
    /// The prefix including the underscore, e.g. `"bk_"`.
    static var prefix: String { get }
    /// The full text, e.g. `"bk_7m2k9c4t0a1b3d5e"`.
    var rawValue: String { get }
    /// Wraps text already known to be valid.
    init(uncheckedRawValue: String)
}

/// The number of base32 symbols after the prefix.
public let identifierSymbolCount = 16

extension PrefixedIdentifier {
    /// Makes an id from 10 random bytes (the caller's random source; the API uses the OS's).
    public init(randomBytes: [UInt8]) {
        precondition(randomBytes.count == 10, "an identifier needs exactly 10 random bytes (80 bits)")
        self.init(uncheckedRawValue: Self.prefix + Base32.encode(randomBytes))
    }

    /// Makes a fresh id from `generator` (`SystemRandomNumberGenerator` reads the OS's random source).
    public static func random(using generator: inout some RandomNumberGenerator) -> Self {
        Self(randomBytes: (0..<10).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// Makes a fresh id whose first 48 bits are `time` in milliseconds (big-endian) and last 32 bits random:
    /// ids made later sort after earlier ones (base32 keeps byte order), so a store's index on them grows at
    /// its end instead of touching a random page per insert. For records created in bulk (bookings); such an
    /// id tells when it was made, and within one millisecond 32 random bits tell ids apart.
    public static func timeOrdered(at time: Instant, using generator: inout some RandomNumberGenerator) -> Self {
        let milliseconds = UInt64(max(0, time.millisecondsSinceEpoch))
        var bytes = (0..<6).map { UInt8(truncatingIfNeeded: milliseconds >> (8 * (5 - $0))) }
        bytes += (0..<4).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Self(randomBytes: bytes)
    }

    /// Makes a fresh id from the OS's random source.
    public static func random() -> Self {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// Parses text such as a path component or a scanned QR payload; nil when it is not an id of this kind.
    /// Upper case and Crockford's look-alikes (`I`, `L`, `O`) are accepted and normalised.
    public init?(_ text: some StringProtocol) {
        let utf8 = Array(text.utf8)
        let prefix = Array(Self.prefix.utf8)
        guard utf8.count == prefix.count + identifierSymbolCount else { return nil }
        for (a, b) in zip(utf8, prefix) where a | 0x20 != b | 0x20 { return nil }
        var symbols: [UInt8] = []
        symbols.reserveCapacity(identifierSymbolCount)
        for c in utf8[prefix.count...] {
            guard let s = Base32.normalise(c) else { return nil }
            symbols.append(s)
        }
        self.init(uncheckedRawValue: Self.prefix + String(decoding: symbols, as: UTF8.self))
    }

    /// The raw text.
    public var description: String { rawValue }

    /// Orders by the raw text.
    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    /// Decodes from a JSON string, refusing text that is not an id of this kind.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let id = Self(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not a valid id: expected \(Self.prefix) and 16 base32 symbols")
        }
        self = id
    }

    /// Encodes as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// A rider's account id (`ri_...`).
public struct RiderID: PrefixedIdentifier {
    /// `"ri_"`.
    public static let prefix = "ri_"
    /// The full text.
    public let rawValue: String
    /// Wraps text already known to be valid.
    public init(uncheckedRawValue: String) { rawValue = uncheckedRawValue }
}

/// A driver's account id (`dr_...`).
public struct DriverID: PrefixedIdentifier {
    /// `"dr_"`.
    public static let prefix = "dr_"
    /// The full text.
    public let rawValue: String
    /// Wraps text already known to be valid.
    public init(uncheckedRawValue: String) { rawValue = uncheckedRawValue }
}

/// A dispatcher's account id (`dp_...`).
public struct DispatcherID: PrefixedIdentifier {
    /// `"dp_"`.
    public static let prefix = "dp_"
    /// The full text.
    public let rawValue: String
    /// Wraps text already known to be valid.
    public init(uncheckedRawValue: String) { rawValue = uncheckedRawValue }
}

/// A booking id (`bk_` and 16 lower-case base32 symbols): short enough for a small QR code, unguessable.
public struct BookingID: PrefixedIdentifier {
    /// `"bk_"`.
    public static let prefix = "bk_"
    /// The full text.
    public let rawValue: String
    /// Wraps text already known to be valid.
    public init(uncheckedRawValue: String) { rawValue = uncheckedRawValue }
}

extension BookingID {
    /// The id as people read it on the board and in messages: its last 6 characters, which are random (the
    /// first ones encode the booking time, so trips booked together would share them).
    public var shortForm: String { String(rawValue.suffix(6)) }
}
