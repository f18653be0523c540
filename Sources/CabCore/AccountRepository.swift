/// Accounts and their tokens (implemented by `CabStore`).
///
/// Methods block until done (a write returns once it is durable); call them from request threads,
/// not from the cooperative pool.
public protocol AccountRepository: Sendable {
    /// Stores a new rider and the hash of their token.
    func createRider(_ rider: Rider, tokenHash: TokenHash) throws
    /// Stores a new driver and the hash of their token.
    func createDriver(_ driver: Driver, tokenHash: TokenHash) throws
    /// Stores a new dispatcher and the hash of their token.
    func createDispatcher(_ dispatcher: Dispatcher, tokenHash: TokenHash) throws
    /// Who holds the token with this hash; nil when unknown or revoked.
    func principal(forTokenHash hash: TokenHash) throws -> Principal?
    /// Who holds the token with this hash if that is known without I/O (a cache in memory); nil means "ask
    /// `principal(forTokenHash:)`", never "unknown". For requests served on an event-loop thread.
    func cachedPrincipal(forTokenHash hash: TokenHash) -> Principal?
    /// Revokes a token at `time`; true when it existed and was live.
    func revokeToken(_ hash: TokenHash, at time: Instant) throws -> Bool
    /// Drops `hash` from the cache of resolved tokens, if any (another node revoked it), so the next request
    /// with it reads the store.
    func forgetCachedToken(_ hash: TokenHash)
    /// A rider by id.
    func rider(_ id: RiderID) throws -> Rider?
    /// A driver by id.
    func driver(_ id: DriverID) throws -> Driver?
    /// A dispatcher by id.
    func dispatcher(_ id: DispatcherID) throws -> Dispatcher?
}

extension AccountRepository {
    /// No cache: every look-up reads the store.
    public func cachedPrincipal(forTokenHash hash: TokenHash) -> Principal? { nil }
    /// No cache: nothing to forget.
    public func forgetCachedToken(_ hash: TokenHash) {}
}

/// Tells the other nodes of a cluster that a token was revoked here, so that each drops it from its token cache
/// at once instead of when the cache entry expires (`store.postgres_token_cache_ms`). A single node has none.
public protocol TokenRevocationBus: Sendable {
    /// Announces the revocation of the token with hash `hash`. When the others cannot be told (Redis away), the
    /// bus says so in its log; their caches then let the token go by themselves.
    func announce(_ hash: TokenHash)
}
