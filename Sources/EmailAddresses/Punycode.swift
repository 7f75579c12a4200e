/// RFC 3492's Punycode encoder with IDNA's parameters (section 5): a label's code points as the ASCII letters, digits
/// and hyphen of an A-label's part after `xn--`. Encoding only: Postern writes A-labels and compares them, it never
/// shows a U-label back.
enum Punycode {
    private static let base: UInt32 = 36
    private static let tMin: UInt32 = 1
    private static let tMax: UInt32 = 26
    private static let skew: UInt32 = 38
    private static let damp: UInt32 = 700
    private static let initialBias: UInt32 = 72
    private static let initialN: UInt32 = 128

    /// `scalars` encoded (section 6.3): the basic code points as they are, a `-` when there were any, then the
    /// deltas of the others; nil on the overflow section 6.4 guards against (a label far past DNS's 63 bytes).
    static func encode(_ scalars: [Unicode.Scalar]) -> String? {
        let input = scalars.map(\.value)
        var output = input.filter { $0 < 0x80 }.map { Character(Unicode.Scalar(UInt8($0))) }
        let basicCount = UInt32(output.count)
        var handled = basicCount
        if basicCount > 0 { output.append("-") }
        var n = initialN, delta: UInt32 = 0, bias = initialBias
        while handled < UInt32(input.count) {
            guard let next = input.filter({ $0 >= n }).min() else { return nil }
            let (step, stepOverflow) = (next - n).multipliedReportingOverflow(by: handled + 1)
            let (sum, sumOverflow) = delta.addingReportingOverflow(step)
            guard !stepOverflow, !sumOverflow else { return nil }
            delta = sum
            n = next
            for value in input {
                if value < n {
                    guard delta < UInt32.max else { return nil }
                    delta += 1
                }
                guard value == n else { continue }
                var q = delta
                var k = base
                while true {
                    let t = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                    if q < t { break }
                    output.append(digit(t + (q - t) % (base - t)))
                    q = (q - t) / (base - t)
                    k += base
                }
                output.append(digit(q))
                bias = adapt(delta, points: handled + 1, first: handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return String(output)
    }

    /// Section 6.1's bias adaptation.
    private static func adapt(_ delta: UInt32, points: UInt32, first: Bool) -> UInt32 {
        var delta = first ? delta / damp : delta / 2
        delta += delta / points
        var k: UInt32 = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    /// The digit `d` (0...35): `a`-`z`, then `0`-`9`.
    private static func digit(_ d: UInt32) -> Character {
        Character(Unicode.Scalar(UInt8(d < 26 ? 0x61 + d : 0x30 + d - 26)))
    }
}
