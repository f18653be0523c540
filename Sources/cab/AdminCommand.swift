import ArgumentParser
import CabAPI
import CabCore
import CabImport
import CabStore
import Foundation

/// `cab admin`: account administration on a data directory's store.
struct AdminCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Account administration (create-dispatcher).",
        subcommands: [CreateDispatcher.self])
}

/// `cab admin create-dispatcher --data DIR NAME`.
struct CreateDispatcher: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-dispatcher",
        abstract: "Create a dispatcher account and print its token.",
        discussion: """
            Creates a dispatcher account in the data directory's store and prints its bearer token alone on \
            standard output. The token is shown only this once; the store keeps just its SHA-256.
            """)

    @OptionGroup var data: DataDirectoryOption
    @Argument(help: ArgumentHelp("the dispatcher's name (1 to 200 characters)", valueName: "NAME"))
    var name: String
    @OptionGroup var logLevel: LogLevelOption

    func validate() throws {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= 200 else { throw ValidationError("NAME must be 1 to 200 characters") }
    }

    func run() throws {
        logLevel.apply()
        let name = self.name.trimmingCharacters(in: .whitespacesAndNewlines)
        let directory = DataDirectory(path: data.resolved)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            Console.fail(
                "no data directory at \(directory.path); run `cab import MAP.osm.pbf --data DIR` first", code: 66)
        }
        do {
            let store = try SQLiteStore(path: directory.storePath)
            defer { store.close() }
            let token = try TokenAuthority.newToken(prefix: "dispatcher")
            let dispatcher = Dispatcher(id: .random(), name: name, createdAt: .now())
            try store.createDispatcher(dispatcher, tokenHash: TokenAuthority.tokenHash(token))
            Console.line(token)
            Log.info("dispatcher created", ["id": dispatcher.id.rawValue])
        } catch {
            Console.fail("cannot create the dispatcher in \(directory.storePath): \(error)", code: 73)
        }
        exitProcess(0)
    }
}
