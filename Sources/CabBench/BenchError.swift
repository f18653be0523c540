import CabLoopback

/// What a benchmark could not do (start the server, run wrk, reach an endpoint), with what to fix: the loopback
/// tools' error, one type for both.
package typealias BenchError = LoopbackError
