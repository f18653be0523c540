import Synchronization

/// Where the touching loads of a shared, immutable structure end up (`Snapper.snap(_:)` over many coordinates).
///
/// A touching pass reads one word of each cache line a later pass needs, so that the misses of many independent
/// points are in flight together (the queries of `UpperLabelQuery+Batch` and its path rebuilding do the same and
/// keep the sum in their own per-thread object). The words read are summed and stored here once per batch, so
/// that the optimizer cannot drop the loads; nothing reads the value.
enum TouchSink {
    private static let value = Atomic<UInt32>(0)

    /// Keeps the loads that `sum` was computed from.
    @inline(__always)
    static func keep(_ sum: UInt32) { value.store(sum, ordering: .relaxed) }
}
