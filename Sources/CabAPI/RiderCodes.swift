import CabCore
import CabHTTP
import CabStore
import Synchronization

/// The rider's QR code: `<booking id>.<secret>`, where the secret is an HMAC-SHA256 of the booking id under a
/// key only the server holds (made once, kept in the store). It is still a booking reference (the rider's app
/// and a dispatcher can read the id before the dot), but a driver who knows the booking id from the offer
/// cannot make it: the assigned driver starts a trip only with what the rider shows, the QR or the 4-digit PIN.
final class RiderCodes: Sendable {
    /// The store's secret name.
    static let secretName = "rider-qr-hmac-sha256"
    /// Hex digits of the HMAC kept in the payload: 80 bits, far beyond the attempt limit's reach.
    static let secretHexDigits = 20

    private let store: (any ApplicationStore)?
    private let now: @Sendable () -> Instant
    private let key = Mutex<[UInt8]?>(nil)

    init(store: (any ApplicationStore)?, now: @escaping @Sendable () -> Instant) {
        self.store = store
        self.now = now
    }

    /// Reads (or makes, once) the key now when there is a store; a failure is left for the first payload to report.
    func loadKeyIfPossible() {
        guard store != nil else { return }
        _ = try? loadKey()
    }

    /// The QR payload for `booking`.
    func payload(for booking: BookingID) throws -> String {
        booking.rawValue + "." + secret(for: booking, key: try loadKey())
    }

    /// The booking a start code names and whether its secret is right; nil when `code` is no QR payload
    /// (a PIN, or anything else the state machine will judge).
    func verify(_ code: String) throws -> (booking: BookingID, valid: Bool)? {
        guard let dot = code.lastIndex(of: "."), let id = BookingID(String(code[..<dot])) else { return nil }
        let given = code[code.index(after: dot)...].lowercased()
        let expected = secret(for: id, key: try loadKey())
        // Compared in constant time: the secret must not leak one digit at a time.
        var difference = UInt8(given.utf8.count == expected.utf8.count ? 0 : 1)
        for (a, b) in zip(given.utf8, expected.utf8) { difference |= a ^ b }
        return (id, difference == 0)
    }

    private func secret(for booking: BookingID, key: [UInt8]) -> String {
        String(
            TokenAuthority.hex(Self.hmacSHA256(key: key, message: Array(("qr:" + booking.rawValue).utf8)))
                .prefix(Self.secretHexDigits))
    }

    private func loadKey() throws -> [UInt8] {
        if let cached = key.withLock({ $0 }) { return cached }
        guard let store else {
            throw ProblemType.noStore.error("QR codes need the store; start `cab serve` with a data directory.")
        }
        let loaded = try store.serverSecret(named: Self.secretName, at: now()) { try TokenAuthority.randomBytes(32) }
        key.withLock { $0 = loaded }
        return loaded
    }

    /// HMAC-SHA256 (RFC 2104) over `TokenAuthority.sha256`.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? TokenAuthority.sha256(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = TokenAuthority.sha256(block.map { $0 ^ 0x36 } + message)
        return TokenAuthority.sha256(block.map { $0 ^ 0x5c } + inner)
    }
}
