extension NearestDriverIndex {
    /// The bytes this index holds on the heap, counted from the capacities of its arrays, dictionaries and
    /// cell lists (element strides plus each dictionary's control bits and each array's 32-byte header).
    ///
    /// Divide by `count` for bytes per driver. Allocator rounding is not included; `TrackingBenchmark` checks
    /// the figure against the allocator's own count.
    public var heapBytes: Int {
        func array<T>(_ a: [T]) -> Int { 32 + a.capacity * MemoryLayout<T>.stride }
        func dictionary<K, V>(_ d: [K: V]) -> Int {
            32 + d.capacity * (MemoryLayout<K>.stride + MemoryLayout<V>.stride) * 4 / 3 + d.capacity / 6
        }
        var total = dictionary(slotByKey) + dictionary(cellByKey)
        total += array(keys) + array(latitudesE7) + array(longitudesE7) + array(timesMilliseconds)
        total +=
            array(headings) + array(speedsDecimeters) + array(statuses) + array(vehicles) + array(cellOfSlot)
            + array(placeInCell)
        total += array(freeSlots) + array(cellMembers)
        for members in cellMembers { total += array(members) }
        return total
    }
}
