import Testing

@testable import CabStore

@Suite struct StoreErrorTests {
    @Test func describesItselfByItsMessage() {
        let error = StoreError(.init("example"), "Something went wrong; fix it.")
        #expect("\(error)" == "Something went wrong; fix it.")
        #expect(error.code == .init("example"))
    }
}
