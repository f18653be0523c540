import Foundation

/// The server address a person types on the apps' first screen, checked before anything is sent.
///
/// `make run` serves plain HTTP on port 8080: the iOS simulator reaches it at `http://localhost:8080`, a phone at
/// the Mac's (or Debian machine's) address on the same network, such as `http://192.168.1.10:8080`.
public enum ServerAddress {
    /// The address the apps suggest: `make run` on the same Mac, seen from the simulator.
    public static let suggested = "http://localhost:8080"

    /// The server's base URL for `text`; `http://` is assumed when no scheme is typed ("192.168.1.10:8080").
    /// Nil when it is no http(s) address with a host, or it carries a path, query or fragment.
    public static func url(from text: String) -> URL? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, !trimmed.contains(" ") else { return nil }
        let withScheme = trimmed.contains("://") ? trimmed : "http://" + trimmed
        guard let components = URLComponents(string: withScheme),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty,
            components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil,
            components.user == nil, components.password == nil
        else { return nil }
        var base = URLComponents()
        base.scheme = scheme
        base.host = host
        base.port = components.port
        return base.url
    }

    /// What the form says about `text`: nil when it can be used, else the problem in words.
    public static func problem(with text: String) -> String? {
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            return "Type the address of the SwiftCab server, for example \(suggested)."
        }
        return url(from: text) == nil
            ? "That is not a server address. Type it like http://192.168.1.10:8080 (no path after the port)." : nil
    }

    /// The Keychain account for `role`'s token on the server at `url`: one per role and server, so a token
    /// made by one server is never sent to another ("rider@192.168.1.10:8080").
    public static func account(_ role: String, at url: URL) -> String {
        let port = url.port.map { ":\($0)" } ?? ""
        return "\(role)@\(url.host ?? "")\(port)"
    }

    /// A file name for `role`'s data kept for the server at `url` (the driver's unsent positions): letters,
    /// digits, `-` and `_` only, so positions recorded for one server are never uploaded to another.
    public static func fileName(_ role: String, at url: URL, suffix: String) -> String {
        let safe = account(role, at: url).map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "_" }
        return String(safe) + suffix
    }
}
