import Foundation

/// Sends a batch of fixes to the server (`CabAPIClient` posts them to `POST /v1/driver/locations`).
public protocol LocationTransport: Sendable {
    /// Uploads `fixes`, oldest first, and says how it went; never throws: every failure is an `UploadResult`.
    func upload(_ fixes: [ReportedFix]) async -> UploadResult
}

/// The thin driver around `ReporterStateMachine`: feeds it samples and times, persists its snapshot and
/// performs its uploads one at a time.
///
/// Call `record` for every sample from the platform's location service, `poll` when `nextWakeDate` comes (a
/// timer), and `networkBecameAvailable` when the platform reports connectivity.
public actor LocationReporter {
    private var machine: ReporterStateMachine
    private let transport: any LocationTransport
    private let store: (any ReporterStore)?
    private let now: @Sendable () -> Date
    private var uploadWaiters: [CheckedContinuation<Void, Never>] = []

    /// A reporter restored from `store` (when given) that reads the time from `now`.
    public init(
        configuration: LocationReporterConfiguration = .init(), transport: any LocationTransport,
        store: (any ReporterStore)? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) throws(ClientError) {
        let snapshot = try store?.load() ?? ReporterSnapshot()
        machine = ReporterStateMachine(configuration: configuration, restoring: snapshot)
        self.transport = transport
        self.store = store
        self.now = now
    }

    /// Takes a raw sample; uploads when one is due. Throws only when the snapshot cannot be saved.
    /// A `forced` sample is kept even within the distance filter (see `ReporterStateMachine.receive`).
    public func record(_ sample: LocationSample, forced: Bool = false) async throws(ClientError) {
        try await perform(machine.receive(sample, now: now(), forced: forced))
    }

    /// Performs any upload that has come due (throttle window or back-off over).
    public func poll() async throws(ClientError) {
        try await perform(machine.poll(now: now()))
    }

    /// Retries at once after the platform reports that the network is back.
    public func networkBecameAvailable() async throws(ClientError) {
        try await perform(machine.networkBecameAvailable(now: now()))
    }

    /// Sends every queued fix now, oldest first, after any upload in flight, ignoring the throttle and back-off
    /// (see `ReporterStateMachine.flush`). Throws a `.network` error when fixes are still waiting afterwards.
    public func flush() async throws(ClientError) {
        while machine.isUploading { await withCheckedContinuation { uploadWaiters.append($0) } }
        try await perform(machine.flush(now: now()))
        let waiting = machine.snapshot.queue.count
        guard machine.isFlushed else {
            throw ClientError(
                .network, "\(waiting) positions of the trip could not be sent yet; check the connection and try again.")
        }
    }

    /// The state that survives restarts (queue, last upload, sequence).
    public var snapshot: ReporterSnapshot { machine.snapshot }

    /// When to call `poll` next; nil when nothing waits.
    public var nextWakeDate: Date? { machine.nextWakeDate }

    /// No upload before this time (back-off); nil when none is running.
    public var retryAt: Date? { machine.retryAt }

    private func perform(_ actions: [ReporterStateMachine.Action]) async throws(ClientError) {
        var queue = actions[...]
        var firstError: ClientError?
        while let action = queue.popFirst() {
            switch action {
            case .persist(let snapshot):
                do throws(ClientError) {
                    try store?.save(snapshot)
                } catch {
                    firstError = firstError ?? error  // keep going: the upload must still be answered
                }
            case .upload(let batch):
                let result = await transport.upload(batch)
                queue.append(contentsOf: machine.uploadFinished(result, now: now()))
                let waiters = uploadWaiters
                uploadWaiters = []
                for waiter in waiters { waiter.resume() }
            }
        }
        if let firstError { throw firstError }
    }
}
