import Foundation
import Testing

import CabTestSupport

@Suite struct CommandLineTests {
    @Test func unknownCommandExits64() throws {
        let result = try CabProcess.run(["frobnicate"])
        #expect(result.status == 64)
        #expect(result.standardError.contains("unknown command"))
    }
}
