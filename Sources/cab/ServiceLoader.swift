import CabAPI

/// Loads what `cab serve` answers from out of the data directory, failing with a message that says what to fix.
enum ServiceLoader {
    static func load(dataDirectory: String, arguments: Arguments) -> Services {
        Services()
    }
}
