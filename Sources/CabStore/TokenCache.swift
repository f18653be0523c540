import CabCore
import Synchronization

/// Recently resolved bearer tokens (hash → principal), so a busy client is not looked up in SQLite on every
/// request. Bounded: when a stripe is full, the stripe is dropped (the next requests refill it). Entries live for
/// `lifetimeMilliseconds` on the injected clock, so a token revoked by another process stops working within that
/// time; a revocation through this store (`SQLiteStore.revokeToken`) removes the entry at once.
/// Unknown tokens are not cached: a wrong token always reaches the store.
final class TokenCache: Sendable {
    private struct Entry {
        var principal: Principal
        var expiresAtMilliseconds: Int64
    }

    private struct State {
        var entries: [TokenHash: Entry] = [:]
        /// Revocations so far: a read that started before one is not cached (it may have seen the token live).
        var revocations = 0
    }

    /// When a store read began, for `remember`.
    struct ReadStart {
        var milliseconds: Int64
        var revocations: Int
    }

    /// One lock per stripe (picked by the hash's first byte), so request threads rarely wait for each other.
    private final class Stripe: Sendable {
        let state = Mutex(State())
    }

    private let stripes: [Stripe] = (0..<16).map { _ in Stripe() }

    private func stripe(_ hash: TokenHash) -> Stripe { stripes[Int(hash.bytes.first ?? 0) & 15] }
    let capacity: Int
    let lifetimeMilliseconds: Int64
    private let now: @Sendable () -> Int64

    /// A cache of at most `capacity` tokens, each kept `lifetimeMilliseconds` on `now` (monotonic milliseconds).
    init(capacity: Int, lifetimeMilliseconds: Int64, now: @escaping @Sendable () -> Int64) {
        precondition(capacity >= 0 && lifetimeMilliseconds >= 0, "a cache size and a lifetime are not negative")
        self.capacity = capacity
        self.lifetimeMilliseconds = lifetimeMilliseconds
        self.now = now
    }

    /// The principal cached for `hash`, if still fresh.
    func principal(for hash: TokenHash) -> Principal? {
        guard capacity > 0 else { return nil }
        let t = now()
        return stripe(hash).state.withLock { s in
            guard let entry = s.entries[hash] else { return nil }
            guard t < entry.expiresAtMilliseconds else {
                s.entries[hash] = nil
                return nil
            }
            return entry.principal
        }
    }

    /// Call before reading the store for `hash`; pass the answer to `remember`.
    func startRead(for hash: TokenHash) -> ReadStart {
        let t = now()
        return ReadStart(milliseconds: t, revocations: stripe(hash).state.withLock { $0.revocations })
    }

    /// Remembers that `hash` resolved to `principal` in a store read that began at `start`; the entry expires
    /// `lifetimeMilliseconds` after the read began. Nothing is kept when a revocation happened meanwhile.
    func remember(_ principal: Principal, for hash: TokenHash, readStartedAt start: ReadStart) {
        guard capacity > 0 else { return }
        let stripeCapacity = max(1, capacity / stripes.count)
        stripe(hash).state.withLock { s in
            guard s.revocations == start.revocations else { return }
            if s.entries.count >= stripeCapacity { s.entries.removeAll(keepingCapacity: true) }
            s.entries[hash] = Entry(
                principal: principal, expiresAtMilliseconds: start.milliseconds + lifetimeMilliseconds)
        }
    }

    /// The principal for `hash`: the cached one while fresh, else what `read` finds in the store (remembered when
    /// live and no revocation happened during the read). The one way the stores resolve a token.
    func principal(for hash: TokenHash, readingWith read: () throws -> Principal?) throws -> Principal? {
        if let cached = principal(for: hash) { return cached }
        let start = startRead(for: hash)
        let found = try read()
        if let found { remember(found, for: hash, readStartedAt: start) }
        return found
    }

    /// Forgets `hash` (it is being revoked); reads already in flight will not be cached either.
    func forget(_ hash: TokenHash) {
        stripe(hash).state.withLock { s in
            s.entries[hash] = nil
            s.revocations &+= 1
        }
    }
}
