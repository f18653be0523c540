import Testing

@testable import CabImport

@Suite struct ImportErrorTests {
    @Test func describesItselfByItsMessage() {
        let error = ImportError(.init("example"), "Something went wrong; fix it.")
        #expect("\(error)" == "Something went wrong; fix it.")
        #expect(error.code == .init("example"))
    }
}
