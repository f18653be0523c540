import CabGeo
import CabRoutingBench
import Foundation
import Testing

@testable import CabRouting

/// Large buffers and a graph's arrays on huge pages (`HugePages`): the same values, the memory where the kernel
/// keeps huge pages, and nothing lost when buffers are cut (`prefix`) and freed.
@Suite struct HugePagesTests {
    /// Whether this kernel hands out transparent huge pages to memory that asks (its setting is not `never`).
    static let kernelOffersHugePages: Bool = {
        guard HugePages.enabled,
            let setting = try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8)
        else { return false }
        return !setting.contains("[never]")
    }()

    /// The lines of `/proc/self/smaps` (split into fields) that describe mappings overlapping `[low, high)`.
    static func smapsLines(overlapping low: UInt, _ high: UInt) -> [[Substring]] {
        // Read through `FileHandle`: the file's size reads as 0, and it is produced as it is read.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/smaps"), let data = try? handle.readToEnd()
        else { return [] }
        var inside = false
        var lines: [[Substring]] = []
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let ends = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = ends.count == 2 && ends[0] < high && ends[1] > low
            } else if inside {
                lines.append(fields)
            }
        }
        return lines
    }

    /// The `AnonHugePages` kilobytes `/proc/self/smaps` counts in the mappings overlapping `[start, start + bytes)`.
    static func hugeKilobytes(at start: UnsafeRawPointer, bytes: Int) -> Int {
        let low = UInt(bitPattern: Int(bitPattern: start))
        return smapsLines(overlapping: low, low + UInt(bytes)).reduce(0) { total, fields in
            guard fields.first == "AnonHugePages:", fields.count > 1, let kb = Int(fields[1]) else { return total }
            return total + kb
        }
    }

    /// Whether a mapping overlapping the whole huge pages inside `[start, start + bytes)` carries `MADV_HUGEPAGE`'s
    /// advice (`hg` among its `VmFlags`).
    static func advisedHuge(at start: UnsafeRawPointer, bytes: Int) -> Bool {
        let size = UInt(HugePages.size)
        let low = (UInt(bitPattern: Int(bitPattern: start)) + size - 1) & ~(size - 1)
        let high = (UInt(bitPattern: Int(bitPattern: start)) + UInt(bytes)) & ~(size - 1)
        guard high > low else { return false }
        return smapsLines(overlapping: low, high).contains { $0.first == "VmFlags:" && $0.contains("hg") }
    }

    @Test func largeBuffersHoldTheirValuesOnHugePages() throws {
        let count = 3 << 20  // 12 MiB of UInt32
        let buffer = ContractionBuffer<UInt32>(repeating: 7, count: count)
        for i in stride(from: 0, to: count, by: 4099) { buffer[i] = UInt32(truncatingIfNeeded: i) }
        for i in stride(from: 0, to: count, by: 4099) { #expect(buffer[i] == UInt32(truncatingIfNeeded: i)) }
        #expect(buffer[count - 1] == 7)
        if Self.kernelOffersHugePages {
            #expect(Int(bitPattern: buffer.base) % HugePages.size == 0)
            // Every page was written: at least the whole huge pages inside are huge.
            #expect(Self.hugeKilobytes(at: buffer.base, bytes: count * 4) >= 8 << 10)
        }
        // A prefix keeps the block (and frees all of it when it goes).
        let cut = buffer.prefix(1_000)
        #expect(cut.count == 1_000 && cut[999] == 7 && cut[0] == 0)
    }

    @Test func smallBuffersAreLeftAsTheyWere() {
        let small = ContractionBuffer<UInt8>([1, 2, 3])
        #expect(small.array == [1, 2, 3])
        let empty = ContractionBuffer<Int32>([])
        #expect(empty.count == 0)
    }

    @Test func arraysMovedOntoHugePagesAreTheSame() {
        let large = (0..<(1 << 20)).map { (i: Int) -> Int in i &* 2_654_435_761 }  // 8 MiB of Int
        let moved = large.onHugePages()
        #expect(moved == large)
        if Self.kernelOffersHugePages {
            moved.withUnsafeBufferPointer { buffer in
                #expect(Self.hugeKilobytes(at: buffer.baseAddress!, bytes: buffer.count * 8) >= 4 << 10)
            }
        }
        let small = [1, 2, 3]
        #expect(small.onHugePages() == small)
        let written = [Int](onHugePagesCount: 1 << 20) { start in
            for i in 0..<(1 << 20) { (start + i).initialize(to: large[i]) }
        }
        #expect(written == large)
    }

    /// An array that reserves its room on huge pages grows into it by appending, keeps its values, and its storage
    /// is advised onto huge pages (the contraction's arc pools and arc table). Whether the kernel then gives huge
    /// pages depends on whether the allocator handed out memory it had written before (a test process reuses its
    /// heap), so the test reads the advice (`hg` in the mapping's `VmFlags`), not `AnonHugePages`.
    @Test func arraysReservedOnHugePagesGrowIntoThem() {
        let count = 3 << 20  // 12 MiB of UInt32
        var array: [UInt32] = [1, 2]
        array.reserveCapacityOnHugePages(count)
        #expect(array == [1, 2] && array.capacity >= count)
        let storage = array.withUnsafeBufferPointer { $0.baseAddress! }
        for i in 2..<count { array.append(UInt32(truncatingIfNeeded: i &* 2_654_435_761)) }
        // Appending within the reserved room never moved the storage.
        #expect(array.withUnsafeBufferPointer { $0.baseAddress! } == storage)
        #expect(array[0] == 1 && array[1] == 2)
        #expect(array[count - 1] == UInt32(truncatingIfNeeded: (count - 1) &* 2_654_435_761))
        if Self.kernelOffersHugePages {
            #expect(Self.advisedHuge(at: storage, bytes: count * 4))
        }
        var small: [Int] = []
        small.reserveCapacityOnHugePages(3)
        small.append(contentsOf: [4, 5, 6])
        #expect(small == [4, 5, 6])
    }

    /// A graph built from a map and the same graph read back from its file have their arrays on huge pages where
    /// they are large, and route the same.
    @Test func aLargeGraphBuiltAndLoadedKeepsItsArraysOnHugePages() throws {
        let graph = SyntheticCity.grid(rows: 300, cols: 300, seed: 1)
        let bytes = graph.coordinates.count * MemoryLayout<Coordinate>.stride
        #expect(bytes >= HugePages.minimumBytes)
        if Self.kernelOffersHugePages {
            graph.coordinates.withUnsafeBufferPointer { buffer in
                #expect(Self.hugeKilobytes(at: buffer.baseAddress!, bytes: bytes) >= 2 << 10)
            }
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hugepages-\(UUID()).graph").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try graph.write(to: path)
        let loaded = try RoadGraph.load(from: path)
        #expect(loaded.edgeTargets == graph.edgeTargets)
        #expect(loaded.coordinates == graph.coordinates)
        if Self.kernelOffersHugePages {
            loaded.coordinates.withUnsafeBufferPointer { buffer in
                #expect(Self.hugeKilobytes(at: buffer.baseAddress!, bytes: bytes) >= 2 << 10)
            }
        }
    }
}
