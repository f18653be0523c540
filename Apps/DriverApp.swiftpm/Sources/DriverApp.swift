import CabAppModels
import CabAppleSupport
import CabClient
import SwiftUI
import UserNotifications

/// The driver app: the server address, then the shift.
@main
struct DriverApp: App {
    @AppStorage("serverURL") private var serverURL = ServerAddress.suggested
    @State private var session: DriverSession?

    var body: some Scene {
        WindowGroup {
            if let session {
                DriverView(model: session.model)
            } else {
                ServerForm(serverURL: $serverURL) { url in session = DriverSession(url) }
            }
        }
    }
}

/// The model and what keeps it fed: the network watcher, notifications, the kept token and queue.
@MainActor
final class DriverSession {
    let model: DriverModel
    private var network: NetworkWatcher?

    init(_ url: URL) {
        let keychain = KeychainToken(account: ServerAddress.account("driver", at: url))
        let tripInHand = "tripInHand@" + ServerAddress.account("driver", at: url)
        let queueFile = URL.applicationSupportDirectory.appending(
            path: ServerAddress.fileName("driver", at: url, suffix: "-location-queue.json"))
        try? FileManager.default.createDirectory(  // exists after the first run; a failure shows on the first save
            at: URL.applicationSupportDirectory, withIntermediateDirectories: true)
        model = DriverModel(
            client: CabAPIClient(baseURL: url), location: CoreLocationSource(mode: .driving),
            reporterStore: FileReporterStore(url: queueFile))
        model.onSignedIn = { keychain.save($0) }
        model.onTripChanged = { UserDefaults.standard.set($0, forKey: tripInHand) }
        model.onNotify = { text in
            let content = UNMutableNotificationContent()
            content.title = "SwiftCab"
            content.body = text
            UNUserNotificationCenter.current().add(
                UNNotificationRequest(identifier: UUID().uuidString, content: content, trigger: nil))
        }
        network = NetworkWatcher { [model] in model.networkBecameAvailable() }
        UNUserNotificationCenter.current().requestAuthorization(options: [.alert, .sound]) { _, _ in }
        if let token = keychain.read() {
            model.signIn(token: token, resumingTrip: UserDefaults.standard.string(forKey: tripInHand))
        }
    }
}
