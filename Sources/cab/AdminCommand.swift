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
    @Option(
        name: .customLong("postgres"),
        help: ArgumentHelp(
            "the PostgreSQL store `cab serve --postgres` uses (default $CAB_POSTGRES_URL; without it, the data "
                + "directory's SQLite store)", valueName: "URL"))
    var postgres: String?
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
        if let url = postgres
            ?? ProcessInfo.processInfo.environment["CAB_POSTGRES_URL"].flatMap({ $0.isEmpty ? nil : $0 })
        {
            let store: PostgresStore
            do {
                store = try PostgresStore(.init(conninfo: url))
            } catch let error as StoreError {
                Console.fail(
                    "cannot open the PostgreSQL store: \(error.message)", code: error.code == .misconfigured ? 64 : 69)
            } catch {
                Console.fail("cannot open the PostgreSQL store: \(error)", code: 69)
            }
            create(name, in: store, where: "the PostgreSQL store")
        }
        let directory = DataDirectory(path: data.resolved)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            Console.fail(
                "no data directory at \(directory.path); run `cab import MAP.osm.pbf --data DIR` first", code: 66)
        }
        let store: SQLiteStore
        do {
            store = try SQLiteStore(path: directory.storePath)
        } catch {
            Console.fail("cannot create the dispatcher in \(directory.storePath): \(error)", code: 73)
        }
        create(name, in: store, where: directory.storePath)
    }

    /// Creates the dispatcher in `store`, prints the token and exits.
    private func create(_ name: String, in store: any ApplicationStore, where place: String) -> Never {
        do {
            let token = try TokenAuthority.newToken(prefix: "dispatcher")
            let dispatcher = Dispatcher(id: .random(), name: name, createdAt: .now())
            try store.createDispatcher(dispatcher, tokenHash: TokenAuthority.tokenHash(token))
            store.close()
            Console.line(token)
            Log.info("dispatcher created", ["id": dispatcher.id.rawValue])
        } catch {
            store.close()
            Console.fail("cannot create the dispatcher in \(place): \(error)", code: 73)
        }
        exitProcess(0)
    }
}
