import CabCore
import Synchronization

/// Unguessable tracking-link tokens (32 random bytes, base64url) and the booking each shows. A link dies when
/// its trip ends: the API answers 410 for a known token of a finished trip, 404 for an unknown one.
///
/// Held in memory (a server restart forgets live links; the rider shares again).
final class TrackingLinks: Sendable {
    private let links = Mutex<[String: BookingID]>([:])

    /// A new token for `booking`.
    func create(for booking: BookingID) throws(APIError) -> String {
        let token = TokenAuthority.base64URL(try TokenAuthority.randomBytes(32))
        links.withLock { $0[token] = booking }
        return token
    }

    /// The booking a token shows; nil when unknown.
    func booking(for token: String) -> BookingID? { links.withLock { $0[token] } }

    /// The live tokens of `booking`.
    func tokens(of booking: BookingID) -> [String] {
        links.withLock { $0.filter { $0.value == booking }.map(\.key) }
    }
}
