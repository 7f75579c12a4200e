import Synchronization
import Testing

@testable import PostgresClient

/// The pool's doubt that its server is still the primary, as its followers see it.
@Suite("PostgreSQL primary doubt")
struct PostgresPrimaryDoubtTests {
    @Test("each raise is a new generation, told to every follower in order; none before the first")
    func generations() {
        let doubt = PostgresPrimaryDoubt()
        #expect(doubt.generation == 0)
        let heard = Mutex<[String]>([])
        doubt.follow { generation in heard.withLock { $0.append("pool \(generation)") } }
        doubt.follow { generation in heard.withLock { $0.append("loops \(generation)") } }
        #expect(heard.withLock { $0 }.isEmpty)
        doubt.raise()
        doubt.raise()
        #expect(doubt.generation == 2)
        #expect(heard.withLock { $0 } == ["pool 1", "loops 1", "pool 2", "loops 2"])
    }
}
