package sentiment

// The polarity lexicon, written for this scorer (not learnt from the labelled
// calls): general English evaluative words and the phrases customers use to
// thank and to complain. A weight is the phrase's polarity before negation and
// intensifiers; 1 is a plain evaluative word ("good"), 2 a clear one
// ("great", "annoyed"), 3 an emphatic one ("fantastic", "furious"). Courtesy
// is weak on purpose: "thanks" alone is 0.6, below what makes a turn strong
// (callsentiment.Default.Strong after the squashing in Score), so a routine
// "thanks, bye" does not make an unhappy call positive.
//
// Phrases are matched on the scorer's tokens (lower case, contractions
// expanded: "isn't" is "is not"), longest first.
var lexicon = map[string]float64{
	// thanks and praise
	"thanks": 0.6, "thank you": 0.6, "thankyou": 0.6, "cheers": 0.5, "ta": 0.3,
	"thanks a lot": 1.4, "thanks a million": 2, "thanks so much": 1.8, "thank you so much": 1.8,
	"thank you very much": 1.4, "many thanks": 1.2, "much appreciated": 1.6, "thanks again": 0.9,
	"thank goodness": 1.5, "thank god": 1.5, "thanks for your help": 1.0, "thank you for your help": 1.0,
	"appreciate": 1.4, "appreciated": 1.4, "appreciate it": 1.4, "grateful": 1.8, "thankful": 1.6,
	"great": 1.5, "excellent": 2.5, "perfect": 2, "brilliant": 2.5, "fantastic": 3, "amazing": 3,
	"wonderful": 3, "lovely": 2, "superb": 3, "awesome": 2.5, "outstanding": 3, "terrific": 3,
	"marvellous": 3, "marvelous": 3, "fabulous": 3, "splendid": 2.5, "incredible": 2.5,
	"good": 1, "nice": 1, "fine": 0.2, "cool": 0.8, "sweet": 1, "neat": 0.8,
	"happy": 2, "pleased": 2, "glad": 1.6, "delighted": 3, "thrilled": 3, "relieved": 2, "relief": 1.8,
	"impressed": 2.5, "satisfied": 1.8, "love": 2, "loved": 2, "loving": 1.5,
	"helpful": 1.8, "kind": 1.5, "patient": 1.2, "friendly": 1.5, "quick": 0.8, "fast": 0.6,
	"easy": 1, "painless": 1.8, "smooth": 1.2, "sorted": 0.8, "star": 1.5, "legend": 2, "lifesaver": 3,
	"you are a star": 2.5, "made my day": 3, "saved me": 2, "means a lot": 2.5, "so kind": 2.5,
	"recommend": 1.8, "definitely be back": 2.5, "glad i called": 2.5, "exactly what i needed": 2.5,
	"much better": 1.8, "feel better": 1.8, "well done": 2, "good job": 2, "great job": 2.5,
	"really good of you": 2.5, "good of you": 2, "nice of you": 2, "kind of you": 2,
	"looking forward": 1.8, "works perfectly": 2.5, "spot on": 2, "wow": 1.5, "yay": 2,
	"sorting": 0.3, "no worries": 0.3, "no problem": 0.3, "not a problem": 0.3,
	"happy with": 2, "pleased with": 2, "better than": 0.8, "less than i expected": 1.5,

	// complaint and distress
	"bad": -1.5, "poor": -1.8, "terrible": -3, "awful": -3, "horrible": -3, "dreadful": -3,
	"rubbish": -2.5, "useless": -3, "pathetic": -3, "ridiculous": -3, "absurd": -2.5, "joke": -2,
	"a joke": -2.5, "unacceptable": -3, "disgraceful": -3, "disgrace": -3, "shocking": -2.5,
	"appalling": -3, "outrageous": -3, "scandalous": -3, "unbelievable": -2, "incompetent": -3,
	"worst": -3, "nightmare": -3, "mess": -2, "shambles": -3, "rip off": -3, "ripoff": -3, "scam": -3,
	"angry": -3, "furious": -3, "livid": -3, "annoyed": -2.2, "annoying": -2, "irritated": -2,
	"frustrated": -2.5, "frustrating": -2.5, "frustration": -2.5, "upset": -2.5, "unhappy": -2.5,
	"disappointed": -2.5, "disappointing": -2.5, "disappointment": -2.5, "fed up": -3, "sick of": -3,
	"tired of": -2.5, "had enough": -3, "stressed": -2, "stressful": -2, "worried": -1.5, "worry": -1,
	"scared": -2, "panic": -2, "panicking": -2, "anxious": -1.8, "confused": -1, "confusing": -1.2,
	"unfair": -2.2, "wrong": -0.8, "broken": -0.8, "damaged": -1, "crushed": -1.2, "ruined": -2.5,
	"hate": -2.5, "sucks": -2.5, "lost my mind": -2,
	"complain": -2, "complaint": -1.5, "complaining": -2, "make a complaint": -2.5,
	"not good enough": -2.8, "not acceptable": -3, "no excuse": -2.5, "how many times": -2.5,
	"every time": -1, "third time": -1.8, "again and again": -2, "still waiting": -1.8,
	"still not": -1.2, "never works": -2.5, "never again": -3, "never flying with you again": -3,
	"waste of time": -3, "waste of money": -3, "wasted": -2, "typical": -1.8, "seriously": -0.8,
	"passed around": -2.5, "pass me around": -2.5, "nobody told me": -1.8, "no one told me": -1.8,
	"you could have told me": -2, "what a mess": -3, "not happy": -2.5, "not impressed": -2.5,
	"paying for nothing": -2.5, "took my money": -2.5, "sort it out": -1.2, "honestly": -0.2,
	"i will not miss you": -2.5, "not miss you": -2.5, "cancel everything": -1.5, "leaving": -0.4,
	"finally": -0.6, "about time": -2, "ages": -0.8,
}

// negators flip and soften a polar phrase that follows within the negation
// window in the same clause ("not happy", "never helpful").
var negators = map[string]bool{
	"not": true, "no": true, "never": true, "nothing": true, "nobody": true, "hardly": true,
	"without": true, "neither": true, "nor": true, "cannot": true,
}

// intensifiers scale the polar phrase that follows within two tokens.
var intensifiers = map[string]float64{
	"very": 1.5, "really": 1.5, "so": 1.4, "extremely": 1.8, "absolutely": 1.7, "incredibly": 1.7,
	"totally": 1.5, "truly": 1.5, "super": 1.5, "such": 1.3, "most": 1.3, "utterly": 1.8,
	"completely": 1.5, "frankly": 1.2, "bloody": 1.6, "quite": 1.1, "too": 1.2, "at all": 1.3,
	"slightly": 0.6, "a bit": 0.6, "a little": 0.6, "somewhat": 0.7, "kind of": 0.7, "bit": 0.7,
	"pretty": 1.1,
}
