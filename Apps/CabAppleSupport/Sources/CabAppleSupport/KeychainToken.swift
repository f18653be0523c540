import Foundation
import Security

/// A bearer token kept in the Keychain (`SecItemAdd`, `SecItemCopyMatching`), one per account name.
public struct KeychainToken: Sendable {
    /// The Keychain account ("rider", "driver").
    public let account: String
    private let service = "org.swiftcab.token"

    /// The token kept under `account`.
    public init(account: String) { self.account = account }

    /// The token, if one is kept.
    public func read() -> String? {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecReturnData as String: true,
            kSecMatchLimit as String: kSecMatchLimitOne,
        ]
        var item: CFTypeRef?
        guard SecItemCopyMatching(query as CFDictionary, &item) == errSecSuccess, let data = item as? Data else {
            return nil
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Keeps `token`, replacing any; false when the Keychain refused it.
    @discardableResult
    public func save(_ token: String) -> Bool {
        delete()
        let item: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecValueData as String: Data(token.utf8),
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlock,
        ]
        return SecItemAdd(item as CFDictionary, nil) == errSecSuccess
    }

    /// Forgets the token.
    public func delete() {
        let query: [String: Any] = [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account,
        ]
        SecItemDelete(query as CFDictionary)
    }
}
