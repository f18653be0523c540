import CabCore

/// Unguessable tracking-link tokens (32 random bytes, base64url) and the booking each shows, kept in the store
/// (`TrackingLinkRepository`), so a shared link works across a restart. A link dies when its trip ends: the API
/// answers 410 for a known token of a finished trip, 404 for an unknown one.
public final class TrackingLinks: Sendable {
    private let repository: any TrackingLinkRepository
    private let now: @Sendable () -> Instant

    /// Links stored in `repository`, stamped with `now`.
    public init(repository: any TrackingLinkRepository, now: @escaping @Sendable () -> Instant) {
        self.repository = repository
        self.now = now
    }

    /// A new token for `booking`, stored durably before it is returned.
    public func create(for booking: BookingID) throws -> String {
        // `SystemRandomNumberGenerator` reads the OS's cryptographic source (getrandom on Linux).
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        let token = Base64URL.encode(bytes)
        try repository.createTrackingLink(token, for: booking, at: now())
        return token
    }

    /// The booking a token shows; nil when unknown.
    public func booking(for token: String) throws -> BookingID? {
        // Tokens are 43 base64url characters; anything else is unknown without a read.
        guard token.utf8.count == 43 else { return nil }
        return try repository.trackingLinkBooking(token)
    }
}
