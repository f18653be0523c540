import CabAppModels
import SwiftUI

/// Where the SwiftCab server is (`make run` on a Mac: the simulator reaches it at localhost, a phone at the
/// Mac's address on the same network). The check and its words are `ServerAddress`'s.
public struct ServerForm: View {
    @Binding private var serverURL: String
    private let connect: (URL) -> Void

    /// A form editing `serverURL`; Continue calls `connect` with the base URL.
    public init(serverURL: Binding<String>, connect: @escaping (URL) -> Void) {
        _serverURL = serverURL
        self.connect = connect
    }

    public var body: some View {
        Form {
            Section("SwiftCab server") {
                TextField(ServerAddress.suggested, text: $serverURL)
                    .keyboardType(.URL)
                    .textInputAutocapitalization(.never)
                    .autocorrectionDisabled()
                if let problem = ServerAddress.problem(with: serverURL) {
                    Text(problem).font(.caption).foregroundStyle(.secondary)
                }
            }
            Button("Continue") {
                if let url = ServerAddress.url(from: serverURL) { connect(url) }
            }
            .disabled(ServerAddress.url(from: serverURL) == nil)
        }
    }
}
