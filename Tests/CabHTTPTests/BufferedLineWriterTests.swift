import Foundation
import Testing

@testable import CabHTTP

@Suite struct BufferedLineWriterTests {
    /// Every line written before `close()` reaches the file, whole and in order; later lines are dropped and counted.
    @Test func closeWritesEveryLineInOrder() throws {
        let path = NSTemporaryDirectory() + "cab-log-\(UInt32.random(in: 0...UInt32.max)).txt"
        let descriptor = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer {
            close(descriptor)
            unlink(path)
        }
        let writer = BufferedLineWriter(descriptor: descriptor, flushInterval: .seconds(60), batchBytes: 1_000)
        let lines = (0..<5_000).map { "{\"line\":\($0)}" }
        DispatchQueue.concurrentPerform(iterations: 4) { part in
            // Four writers, each its own lines in order; the file must keep each writer's order.
            for index in stride(from: part, to: lines.count, by: 4) { writer.write(lines[index]) }
        }
        writer.close()
        writer.write("after close")
        let written = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(written.count == lines.count)
        #expect(Set(written) == Set(lines))
        for part in 0..<4 {
            let mine = written.filter { (Int($0.dropFirst(8).dropLast()) ?? -1) % 4 == part }
            #expect(mine == stride(from: part, to: lines.count, by: 4).map { lines[$0] })
        }
        #expect(writer.droppedLines == 1)
    }

    /// A full buffer drops new lines instead of growing.
    @Test func aFullBufferDropsLines() throws {
        let descriptor = open("/dev/null", O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let writer = BufferedLineWriter(
            descriptor: descriptor, flushInterval: .seconds(60), batchBytes: 1 << 30, capacityBytes: 100)
        for _ in 0..<20 { writer.write("0123456789") }
        #expect(writer.droppedLines >= 11)
        writer.close()
    }
}
