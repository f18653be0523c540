import CabTestSupport
import Foundation
import Testing

@testable import CabImport

/// A killed import's staging folder is removed by the next import (the probe's finding 9).
@Suite struct StagingCleanupTests {
    @Test func foldersOfDeadImportsGoAndARunningOnesStays() throws {
        let root = try TestData.temporaryDirectory("staging")
        let directory = DataDirectory(path: root.path)
        let files = FileManager.default
        // A process that has exited: its pid is free (until reused; a reused pid only keeps the folder longer).
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()
        let dead = ".import-\(child.processIdentifier)-12345"
        let old = ".import-987654321"  // the form before pids were in the name
        let running = ".import-\(getpid())-777"  // this process: alive
        for name in [dead, old, running] {
            try files.createDirectory(atPath: directory.file(name), withIntermediateDirectories: true)
            try Data(repeating: 7, count: 1024).write(to: URL(fileURLWithPath: directory.file(name) + "/roads.graph"))
        }
        try Data("keep".utf8).write(to: URL(fileURLWithPath: directory.file("map.json")))
        let removed = MapImporter.removeAbandonedStaging(in: directory)
        #expect(Set(removed) == [dead, old])
        #expect(!files.fileExists(atPath: directory.file(dead)) && !files.fileExists(atPath: directory.file(old)))
        #expect(files.fileExists(atPath: directory.file(running)))
        #expect(files.fileExists(atPath: directory.file("map.json")))
    }
}
