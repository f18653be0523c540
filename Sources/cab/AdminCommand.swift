import CabAPI
import CabCore
import CabImport
import CabStore
import Foundation

/// `cab admin create-dispatcher --data DIR NAME`: account administration on a data directory's store.
enum AdminCommand {
    static let flags: [Arguments.Flag] = [
        .init(name: "data", valueName: "DIR", help: "data directory (default $CAB_DATA or data/cab)")
    ]

    static let usage = """
        usage: cab admin create-dispatcher [--data DIR] NAME

        Creates a dispatcher account in the data directory's store and prints its bearer token alone on
        standard output. The token is shown only this once; the store keeps just its SHA-256.

        \(Arguments.describe(flags))
        """

    static func run(_ arguments: [String]) -> Never {
        let args = Arguments(arguments, flags: flags, usage: usage)
        guard args.positional.first == "create-dispatcher" else {
            Console.fail("admin needs a subcommand: create-dispatcher\n\n\(usage)")
        }
        guard args.positional.count == 2 else { Console.fail("create-dispatcher takes one NAME\n\n\(usage)") }
        let name = args.positional[1].trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 200 else { Console.fail("NAME must be 1 to 200 characters") }
        let directory = DataDirectory(path: dataDirectory(args))
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            Console.fail("no data directory at \(directory.path); run `cab import MAP.osm.pbf --data DIR` first", code: 66)
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
