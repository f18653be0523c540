import SwiftUI

/// Where the SwiftCab server is (`make run` on a Mac: the simulator reaches it at localhost, a phone at the
/// Mac's address on the same network).
public struct ServerForm: View {
    @Binding private var serverURL: String
    private let connect: (URL) -> Void

    /// A form editing `serverURL`; Continue calls `connect` with it.
    public init(serverURL: Binding<String>, connect: @escaping (URL) -> Void) {
        _serverURL = serverURL
        self.connect = connect
    }

    public var body: some View {
        Form {
            Section("SwiftCab server") {
                TextField("http://192.168.1.10:8080", text: $serverURL)
                    .keyboardType(.URL)
                    .textInputAutocapitalization(.never)
                    .autocorrectionDisabled()
            }
            Button("Continue") {
                if let url = URL(string: serverURL) { connect(url) }
            }
            .disabled(URL(string: serverURL)?.host() == nil)
        }
    }
}
