extension QRCode {
    /// The mask's penalty (§7.8.3, Table 11): runs of five or more modules of one colour in a row or column (3, plus
    /// one for each module past five), 2 × 2 blocks of one colour (3 each), the finder-like 1:1:3:1:1 pattern with
    /// four light modules on one side (40 each; the light may run off the symbol), and the dark share's distance
    /// from half (10 for each whole 5%).
    var penalty: Int {
        var total = 0
        let columns = (0..<size).map { column in modules.map { $0[column] } }
        for line in modules + columns {
            total += Self.runPenalty(line) + 40 * Self.finderLikeCount(line)
        }
        for row in 0..<(size - 1) {
            for column in 0..<(size - 1) {
                let colour = modules[row][column]
                if modules[row][column + 1] == colour, modules[row + 1][column] == colour,
                    modules[row + 1][column + 1] == colour
                {
                    total += 3
                }
            }
        }
        let dark = modules.reduce(0) { $0 + $1.filter { $0 }.count }
        let all = size * size
        total += ((abs(dark * 20 - all * 10) + all - 1) / all - 1) * 10
        return total
    }

    /// 3 + (length − 5) for each run of five or more modules of one colour.
    static func runPenalty(_ line: [Bool]) -> Int {
        var total = 0
        var run = 1
        for index in 1...line.count {
            if index < line.count, line[index] == line[index - 1] {
                run += 1
                continue
            }
            if run >= 5 { total += 3 + run - 5 }
            run = 1
        }
        return total
    }

    /// How many times dark-light-dark×3-light-dark with four light modules before or after it (out of the symbol
    /// counts as light) appears in `line`.
    static func finderLikeCount(_ line: [Bool]) -> Int {
        let pattern = [true, false, true, true, true, false, true]
        func light(_ range: Range<Int>) -> Bool { range.allSatisfy { $0 < 0 || $0 >= line.count || !line[$0] } }
        var count = 0
        for start in 0...(line.count - pattern.count) where Array(line[start..<start + 7]) == pattern {
            if light((start - 4)..<start) || light((start + 7)..<(start + 11)) { count += 1 }
        }
        return count
    }
}
