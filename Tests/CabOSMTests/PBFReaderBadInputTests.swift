import Foundation
import Testing

@testable import CabOSM

/// Hand-built broken files: each is refused with the right code and a message naming the byte offset.
@Suite struct PBFReaderBadInputTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var bytes: [UInt8]
        var code: OSMError.Code
        var fragment: String
        /// Where the error must point: at least here (the broken blob's start) ...
        var from: Int
        /// ... and before here.
        var before: Int
        var testDescription: String { name }
    }

    static let header = PBFFixture.blob(type: "OSMHeader", payload: PBFFixture.headerBlock())

    /// A file whose one data block holds what `build` writes in a primitive group.
    static func oneGroup(_ name: String, _ fragment: String, _ build: @escaping (inout ProtobufWriter) -> Void) -> Case {
        let block = PBFFixture.block(strings: ["", "highway"]) { $0.message(2, build) }
        let bytes = header + PBFFixture.blob(type: "OSMData", payload: block)
        return Case(name: name, bytes: bytes, code: .corrupt, fragment: fragment, from: header.count, before: bytes.count)
    }

    static let cases: [Case] = [
        oneGroup("string index out of range", "string index 99 out of range (the table has 2)") { group in
            group.message(3) { way in
                way.int(1, 1)
                way.packed(2, [99])
                way.packed(3, [1])
            }
        },
        oneGroup("dense arrays of different lengths", "fewer lats/lons than ids") { group in
            group.message(2) { dense in
                dense.packedDeltas(1, [1, 2, 3])
                dense.packedDeltas(8, [1, 2])
                dense.packedDeltas(9, [1, 2])
            }
        },
        oneGroup("dense keys_vals cut short", "keys_vals end before node 2") { group in
            group.message(2) { dense in
                dense.packedDeltas(1, [1, 2])
                dense.packedDeltas(8, [1, 2])
                dense.packedDeltas(9, [1, 2])
                dense.packed(10, [0, 1, 1])
            }
        },
        oneGroup("more tag keys than values", "more tag keys than values") { group in
            group.message(3) { way in
                way.int(1, 1)
                way.packed(2, [1, 1])
                way.packed(3, [1])
            }
        },
        oneGroup("member of unknown type", "unknown type 3") { group in
            group.message(4) { relation in
                relation.int(1, 1)
                relation.packed(8, [1])
                relation.packedDeltas(9, [5])
                relation.packed(10, [3])
            }
        },
        oneGroup("coordinate off the world", "off the world") { group in
            group.message(1) { node in
                node.sint(1, 1)
                node.sint(8, 1_000_000_000)
                node.sint(9, 0)
            }
        },
        oneGroup("coordinate overflowing Int64", "off the world") { group in
            group.message(1) { node in
                node.sint(1, 1)
                node.sint(8, Int64.max / 2)
                node.sint(9, Int64.min / 2)
            }
        },
        oneGroup("length past the end of its message", "runs past the end") { group in
            group.key(3, wireType: 2)
            group.varint(1 << 40)
        },
        oneGroup("varint of 11 bytes", "varint longer than 10 bytes") { group in
            group.key(3, wireType: 2)
            group.varint(12)
            group.bytes += [0x08] + [UInt8](repeating: 0xff, count: 11)
        },
        oneGroup("wrong wire type", "wire type") { group in group.int(3, 5) },
        {
            var blob = ProtobufWriter()
            blob.bytes(4, [1, 2, 3])
            let bytes = header + PBFFixture.frame(type: "OSMData", blob: blob.bytes)
            return Case(
                name: "lzma blob", bytes: bytes, code: .unsupported, fragment: "unsupported compression in blob at byte",
                from: header.count, before: header.count + 1)
        }(),
        {
            var blob = ProtobufWriter()
            blob.bytes(3, [0x78, 0x9c, 1, 2, 3])
            blob.int(2, 100)
            let bytes = header + PBFFixture.frame(type: "OSMData", blob: blob.bytes)
            return Case(
                name: "bad zlib data", bytes: bytes, code: .corrupt, fragment: "corrupt zlib data", from: header.count,
                before: header.count + 1)
        }(),
        {
            var blob = ProtobufWriter()
            blob.bytes(3, [0x78, 0x9c])
            blob.int(2, 64 << 20)
            let bytes = header + PBFFixture.frame(type: "OSMData", blob: blob.bytes)
            return Case(
                name: "raw_size over 32 MiB", bytes: bytes, code: .corrupt, fragment: "PBF limit", from: header.count,
                before: bytes.count)
        }(),
        {
            let bytes = header + [0x00, 0x01, 0x11, 0x70] + [UInt8](repeating: 0, count: 16)
            return Case(
                name: "blob header over 64 KiB", bytes: bytes, code: .corrupt,
                fragment: "at byte \(header.count): length 70000 exceeds the 64 KiB limit", from: header.count,
                before: header.count + 1)
        }(),
        {
            var blobHeader = ProtobufWriter()
            blobHeader.string(1, "OSMData")
            blobHeader.int(3, -5)
            let bytes = header + [0, 0, 0, UInt8(blobHeader.bytes.count)] + blobHeader.bytes
            return Case(
                name: "negative datasize", bytes: bytes, code: .corrupt, fragment: "datasize -5", from: header.count,
                before: bytes.count)
        }(),
        {
            let bytes = PBFFixture.file(
                header: PBFFixture.headerBlock(required: ["OsmSchema-V0.6", "HistoricalInformation"]), blocks: [])
            return Case(
                name: "unknown required feature", bytes: bytes, code: .unsupported,
                fragment: "requires HistoricalInformation", from: 0, before: 1)
        }(),
        {
            let bytes = Array("<?xml version='1.0' encoding='UTF-8'?>\n<osm>".utf8)
            return Case(
                name: "XML instead of PBF", bytes: bytes, code: .corrupt, fragment: "is this an OSM PBF file?", from: 0,
                before: 1)
        }(),
        {
            let data = PBFFixture.blob(type: "OSMData", payload: PBFFixture.block(strings: [""]) { _ in })
            return Case(
                name: "data before header", bytes: data + header, code: .corrupt, fragment: "not an OSMHeader", from: 0,
                before: 1)
        }(),
        Case(name: "empty file", bytes: [], code: .truncated, fragment: "is empty", from: 0, before: 1),
        {
            let bytes = Array(PBFReaderHandBuiltTests.sample.dropLast(77))
            let total = PBFReaderHandBuiltTests.sample.count
            return Case(
                name: "cut inside the last blob", bytes: bytes, code: .truncated, fragment: "truncated blob at byte",
                from: header.count, before: total)
        }(),
    ]

    @Test(arguments: cases)
    func refusesWithAnOffset(_ badCase: Case) throws {
        let error = try PBFReaderHandBuiltTests.withFile(badCase.bytes) { path in
            #expect(throws: OSMError.self) {
                var collector = ElementCollector()
                try PBFReader(path: path).read(into: &collector)
            }
        }
        let thrown = try #require(error)
        #expect(thrown.code == badCase.code)
        #expect(thrown.message.contains(badCase.fragment), "\(thrown.message)")
        let offset = try #require(thrown.byteOffset)
        #expect((badCase.from..<badCase.before).contains(offset), "\(thrown.message)")
        #expect(thrown.message.contains("at byte \(offset)"), "\(thrown.message)")
    }

    @Test func truncationNamesExpectedAndFoundBytes() throws {
        let sample = PBFReaderHandBuiltTests.sample
        let error = try PBFReaderHandBuiltTests.withFile(Array(sample.dropLast(1))) { path in
            #expect(throws: OSMError.self) {
                var counter = ElementCounter()
                try PBFReader(path: path).read(into: &counter)
            }
        }
        let message = try #require(error?.message)
        #expect(message.hasPrefix("truncated blob at byte "))
        let numbers = message.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        #expect(numbers.count == 3 && numbers[2] == numbers[1] - 1, "\(message)")
        #expect(numbers.first.map { $0 + numbers[1] } == sample.count)
    }
}
