import CabAppModels
import CabAppleSupport
import CabClient
import SwiftUI

/// The rider app: the server address, then the trip.
@main
struct RiderApp: App {
    @AppStorage("serverURL") private var serverURL = ServerAddress.suggested
    @State private var model: RiderModel?

    var body: some Scene {
        WindowGroup {
            if let model {
                RiderView(model: model)
            } else {
                ServerForm(serverURL: $serverURL) { url in model = Self.makeModel(url) }
            }
        }
    }

    /// The model for the server at `url`, with its kept token and the booking left open when the app closed.
    @MainActor
    private static func makeModel(_ url: URL) -> RiderModel {
        let keychain = KeychainToken(account: ServerAddress.account("rider", at: url))
        let openBooking = "openBooking@" + ServerAddress.account("rider", at: url)
        let model = RiderModel(
            service: CabAPIClient(baseURL: url), token: keychain.read(), location: CoreLocationSource(mode: .pickup),
            riderName: "iPhone rider")
        model.onAccountCreated = { keychain.save($0.token) }
        model.onOpenBookingChanged = { UserDefaults.standard.set($0, forKey: openBooking) }
        if let open = UserDefaults.standard.string(forKey: openBooking) { model.resume(bookingID: open) }
        return model
    }
}
