import BufferBudget
import Testing

@Suite("BufferBudget: the bytes every mail session holds together")
struct BufferBudgetTests {
    @Test("reserves up to the capacity, refuses past it, and takes again what is released")
    func reserveAndRelease() {
        let budget = BufferBudget(capacity: 100)
        #expect(budget.reserve(60))
        #expect(!budget.reserve(41))
        #expect(budget.reserve(40))
        #expect(budget.inUse == 100)
        #expect(!budget.reserve(1))
        budget.release(60)
        #expect(budget.inUse == 40)
        #expect(budget.reserve(60))
        #expect(budget.reserve(0))
    }

    @Test("concurrent reservations never take more than the capacity")
    func concurrent() async {
        let budget = BufferBudget(capacity: 1000)
        let taken = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<64 { group.addTask { (0..<100).reduce(0) { sum, _ in sum + (budget.reserve(7) ? 7 : 0) } } }
            return await group.reduce(0, +)
        }
        #expect(taken <= 1000 && taken > 1000 - 7)
        #expect(budget.inUse == taken)
    }
}
