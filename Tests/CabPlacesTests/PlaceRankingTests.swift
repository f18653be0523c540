import Testing

@testable import CabPlaces

/// The ranking formula and the importance formula on their own (docs/places.md, "Ranking" and "Importance").
@Suite struct PlaceRankingTests {
    let ranking = PlaceRanking()
    typealias W = PlaceRanking.WordMatch

    func score(
        _ words: [W], name: PlaceRanking.NameMatch = .none, importance: Double = 0, distance: Double? = nil,
        category: Bool = false, with ranking: PlaceRanking = PlaceRanking()
    ) -> Double {
        ranking.score(
            words: words, name: name, importance: importance, distanceMeters: distance, isCategorySearch: category)
    }

    @Test func exactBeatsPrefixBeatsTypo() {
        let exact = score([W(name: .exact)])
        let prefix = score([W(name: .prefix(typed: 5, length: 8))])
        let typo1 = score([W(name: .typo(edits: 1))])
        let typo2 = score([W(name: .typo(edits: 2))])
        #expect(exact > prefix && prefix > typo1 && typo1 > typo2 && typo2 > score([W()]))
        // The more of the word is typed, the better the prefix.
        #expect(score([W(name: .prefix(typed: 7, length: 8))]) > prefix)
    }

    @Test func textIsTheMeanOverTheQueryWords() {
        #expect(score([W(name: .exact), W()]) == 0.5)
        #expect(score([W(name: .exact), W(name: .exact)]) == 1)
        #expect(score([]) == 0)
    }

    @Test func aWholeNameMatchEarnsItsBonusExceptInACategorySearch() {
        #expect(score([W(name: .exact)], name: .whole) == 1 + ranking.wholeNameBonus)
        #expect(score([W(name: .exact)], name: .prefix) == 1 + ranking.namePrefixBonus)
        #expect(score([W(name: .exact)], name: .whole, category: true) == ranking.categoryNameFactor)
    }

    /// The Monaco case: the shop called "Casino" against the Casino de Monte-Carlo, at their real importances.
    @Test func importanceOutweighsAWholeNameMatchOfAMinorPlace() {
        let shop = score([W(name: .exact)], name: .whole, importance: 0.18)
        let casino = score([W(name: .exact, category: .exact)], name: .prefix, importance: 0.73)
        #expect(casino > shop)
        // With importance weighted out, the whole-name match wins: the weight is what decides.
        let flat = PlaceRanking(importanceWeight: 0)
        #expect(
            score([W(name: .exact)], name: .whole, importance: 0.18, with: flat)
                > score([W(name: .exact, category: .exact)], name: .prefix, importance: 0.73, with: flat))
    }

    @Test func aCategorySearchPrefersPlacesOfThatCategory() {
        let namedLikeIt = score([W(name: .exact)], importance: 0.2, category: true)
        let ofIt = score([W(category: .exact)], importance: 0.2, category: true)
        #expect(ofIt > namedLikeIt)
    }

    @Test func distanceCostsLogarithmicallyAndMoreInACategorySearch() {
        let w = [W(name: .exact)]
        let at0 = score(w, distance: 0)
        let at200 = score(w, distance: 200)
        let at2000 = score(w, distance: 2000)
        #expect(at0 == 1)
        #expect(abs((at0 - at200) - ranking.distanceWeight * 0.30103) < 1e-4)  // log10(2)
        #expect(at200 > at2000)
        #expect((at200 - at2000) < (at0 - at200) * 4)  // 10x farther costs far less than 10x as much
        let c = [W(category: .exact)]
        #expect(
            score(c, distance: 0, category: true) - score(c, distance: 1000, category: true) > at0
                - score(w, distance: 1000))
        #expect(score(w) == at0)  // no near point, no distance term
    }

    /// "hotel" near a hotel 12 m away against a more famous one 300 m away: the nearer wins a category search,
    /// the famous one a name search.
    @Test func nearnessWinsACategorySearchFameANameSearch() {
        let c = [W(category: .exact)]
        #expect(
            score(c, importance: 0.35, distance: 12, category: true)
                > score(c, importance: 0.6, distance: 300, category: true))
        let n = [W(name: .exact)]
        #expect(score(n, importance: 0.35, distance: 12) < score(n, importance: 0.6, distance: 300))
    }

    @Test func importanceCombinesKindWikiLanguagesAndSize() {
        let importance = PlaceImportance()
        let shop = importance.score(.init(kind: 30))
        let museum = importance.score(.init(kind: 70))
        let famousMuseum = importance.score(.init(kind: 70, hasWiki: true, languages: 12, areaSquareMeters: 20_000))
        #expect(shop < museum && museum < famousMuseum && famousMuseum <= 1)
        #expect(abs(museum - 0.6 * 0.7) < 1e-9)
        #expect(importance.score(.init(kind: 100, hasWiki: true, languages: 50, areaSquareMeters: 1e9)) == 1)
        // Size: log-scaled between the configured ends, for outlines and street lengths alike.
        #expect(importance.score(.init(kind: 0, areaSquareMeters: 100)) == 0)
        #expect(abs(importance.score(.init(kind: 0, areaSquareMeters: 10_000)) - 0.05) < 1e-9)
        #expect(importance.score(.init(kind: 0, streetLengthMeters: 5000)) == importance.sizeWeight)
        #expect(importance.score(.init(kind: 0, languages: 10)) == importance.languagesWeight)
        #expect(PlaceImportance(wikiWeight: 0).score(.init(kind: 70, hasWiki: true)) == museum)
    }

    @Test func aSwapOfTwoLettersIsOneEdit() {
        #expect(EditDistance.distance("casnio", "casino", limit: 2) == 1)
        #expect(EditDistance.distance("stokcmann", "stockmann", limit: 2) == 1)
        #expect(EditDistance.distance("stokm", "stockmann", limit: 2, prefix: true) == 1)
        #expect(EditDistance.distance("abcdef", "badcfe", limit: 2) == 3)  // three swaps: beyond the limit
        #expect(EditDistance.distance("kamp", "kamp", limit: 1) == 0)
    }
}
