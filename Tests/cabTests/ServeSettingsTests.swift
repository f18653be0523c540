import CabAPI
import CabCore
import CabDispatch
import CabHTTP
import CabStore
import CabTracking
import Testing

@testable import cab

@Suite struct ServeSettingsTests {
    /// Nothing given is today's behaviour: each component gets exactly its own defaults.
    @Test func theDefaultsAreEachComponentsOwn() throws {
        let settings = try ServeSettings.load(configPath: nil, environment: [:], flags: [:])
        let http = settings.http
        let today = HTTPServerConfiguration()
        #expect(http.host == today.host && http.port == today.port && http.maxBodyBytes == today.maxBodyBytes)
        #expect(
            http.maxConnections == today.maxConnections
                && http.maxConnectionsPerAddress == today.maxConnectionsPerAddress)
        #expect(http.connectionTimeoutSeconds == today.connectionTimeoutSeconds)
        #expect(http.shutdownGracePeriod == today.shutdownGracePeriod)
        #expect(
            http.requestHeaderTimeout == today.requestHeaderTimeout
                && http.requestBodyTimeout == today.requestBodyTimeout)
        #expect(http.maxURIBytes == today.maxURIBytes && http.maxQueryParameters == today.maxQueryParameters)
        #expect(
            http.maxHeaderBytes == today.maxHeaderBytes && http.connectionMemoryBytes == today.connectionMemoryBytes)
        #expect(http.workerThreads == max(4, HTTPServerConfiguration.processorCount * 2))

        let tracking = settings.tracking
        let trackingToday = TrackingConfiguration()
        #expect(tracking.ingest == trackingToday.ingest && tracking.index == trackingToday.index)
        #expect(tracking.maxFixesPerBatch == trackingToday.maxFixesPerBatch)
        #expect(
            tracking.tickInterval == trackingToday.tickInterval
                && tracking.heartbeatInterval == trackingToday.heartbeatInterval)
        #expect(tracking.streamBufferCapacity == trackingToday.streamBufferCapacity)
        #expect(tracking.replayCapacity == trackingToday.replayCapacity)
        #expect(tracking.historyQueueCapacity == trackingToday.historyQueueCapacity)
        #expect(tracking.historyBatchSize == trackingToday.historyBatchSize)
        #expect(tracking.historyLingerMilliseconds == trackingToday.historyLingerMilliseconds)
        #expect(tracking.trailLimit == trackingToday.trailLimit)

        let dispatch = settings.dispatch
        let dispatchToday = DispatchCoordinator.Configuration()
        #expect(dispatch.dispatch == dispatchToday.dispatch && dispatch.alerts == dispatchToday.alerts)
        #expect(dispatch.table == TripTransitionTable(timeouts: TripTimeouts()))
        #expect(dispatch.arrivalFixMaxAgeSeconds == dispatchToday.arrivalFixMaxAgeSeconds)
        #expect(dispatch.arrivalMaxDistanceMeters == dispatchToday.arrivalMaxDistanceMeters)

        let store = settings.store
        let storeToday = SQLiteStore.Configuration()
        #expect(store.readers == storeToday.readers && store.maximumBatch == storeToday.maximumBatch)
        #expect(store.durable && store.tokenCacheCapacity == storeToday.tokenCacheCapacity)
        #expect(
            store.tokenCacheMilliseconds == storeToday.tokenCacheMilliseconds
                && store.walFrameLimit == storeToday.walFrameLimit)
        #expect(settings.dataDirectory == "data/cab" && settings.string("public_dir") == nil)
    }

    @Test func settingsReachTheirComponents() throws {
        let settings = try ServeSettings.load(
            configPath: nil,
            environment: [
                "CAB_DISPATCH_BATCH_SIZE": "5", "CAB_DISPATCH_SEARCH_RADII_M": "1000, 2500",
                "CAB_STORE_TOKEN_CACHE_MS": "5000",
                "CAB_TRACKING_HISTORY_LINGER_MS": "50", "CAB_DISPATCH_OFFER_SECONDS": "20", "CAB_PUBLIC": "",
            ],
            flags: ["pickup-overdue": "900", "arrival-radius": "75.5", "threads": "6"])
        #expect(
            settings.dispatch.dispatch.batchSize == 5 && settings.dispatch.dispatch.searchRadiiMeters == [1000, 2500])
        #expect(settings.dispatch.dispatch.offerSeconds == 20 && settings.dispatch.table.timeouts.offerSeconds == 20)
        #expect(settings.dispatch.table.timeouts.pickupOverdueSeconds == 900)
        #expect(settings.dispatch.arrivalMaxDistanceMeters == 75.5)
        #expect(settings.store.tokenCacheMilliseconds == 5000 && settings.tracking.historyLingerMilliseconds == 50)
        #expect(settings.http.workerThreads == 6)
        #expect(settings.source(of: "http.threads") == .flag("threads"))
        #expect(settings.source(of: "dispatch.batch_size") == .environment("CAB_DISPATCH_BATCH_SIZE"))
        #expect(settings.string("public_dir") == nil && settings.source(of: "public_dir") == .defaults)
    }

    @Test(arguments: [
        (["CAB_DISPATCH_BATCH_SIZE": "51"], "dispatch.batch_size: must be between 1 and 50"),
        (["CAB_DISPATCH_SEARCH_RADII_M": "3000,2000"], "dispatch.search_radii_m"),
        (["CAB_DISPATCH_SEARCH_RADII_M": ""], "dispatch.search_radii_m"),
        (["CAB_TRACKING_INGEST_RATE_LIMIT_BATCHES_PER_SECOND": "0"], "tracking.ingest.rate_limit_batches_per_second"),
        (["CAB_LOG_LEVEL": "chatty"], "log_level: must be one of"),
    ])
    func aBadValueNamesItsKeyAndSource(_ environment: [String: String], _ message: String) {
        do {
            _ = try ServeSettings.load(configPath: nil, environment: environment, flags: [:])
            Issue.record("accepted \(environment)")
        } catch {
            #expect(error.message.contains(message), "\(error.message)")
            #expect(error.message.contains(environment.keys.first!), "\(error.message)")
        }
    }
}

@Suite struct ServeFlagTests {
    /// Every key with a flag in the catalogue has that flag on `cab serve`, and its text reaches the settings.
    @Test func everyCatalogueFlagIsAnOptionOfServe() throws {
        let flagged = SettingKey.all.filter { $0.flag != nil }
        #expect(flagged.count >= 11)
        for key in flagged {
            let flag = try #require(key.flag)
            let command = try ServeCommand.parse(["--\(flag)", "sample"])
            #expect(command.givenFlags == [flag: "sample"], "--\(flag)")
        }
    }
}
