// Package derivedengines is the derived-job worker's engine table on AWS: the
// built-in summarizer and tagger, Amazon Bedrock (SUMMARIZER/TAGGER=bedrock)
// and the OpenAI-compatible providers. Only the derived-job worker imports it,
// so no other function links the Bedrock SDK or the built-in lexicon.
package derivedengines

import (
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/engines"
	"github.com/callscribe/callscribe/shared/engines/bedrock"
	"github.com/callscribe/callscribe/shared/stack/awsstack"
	"github.com/callscribe/callscribe/shared/stack/insightengines"
)

// EngineTable is the table. The Bedrock summarizer and tagger share one client
// when both are selected.
func EngineTable() engines.Table[*awsstack.AWS] {
	var client *bedrock.Client
	bedrockClient := func(a *awsstack.AWS) *bedrock.Client {
		if client == nil {
			client = bedrock.NewClient(bedrockruntime.NewFromConfig(a.SDK), a.Config.BedrockModelID)
		}
		return client
	}
	return engines.Table[*awsstack.AWS]{
		Summarizers: map[string]engines.Factory[*awsstack.AWS, callscribe.Summarizer]{
			"builtin": func(a *awsstack.AWS) (callscribe.Summarizer, func(), error) {
				return insightengines.BuiltinSummarizer(a.Config)
			},
			"openai": func(a *awsstack.AWS) (callscribe.Summarizer, func(), error) {
				return insightengines.OpenAISummarizer(a.Config)
			},
			"bedrock": func(a *awsstack.AWS) (callscribe.Summarizer, func(), error) {
				return bedrock.NewSummarizer(bedrockClient(a)), nil, nil
			},
		},
		Taggers: map[string]engines.Factory[*awsstack.AWS, callscribe.Tagger]{
			"builtin": func(a *awsstack.AWS) (callscribe.Tagger, func(), error) {
				return insightengines.BuiltinTagger(a.Config)
			},
			"openai": func(a *awsstack.AWS) (callscribe.Tagger, func(), error) {
				return insightengines.OpenAITagger(a.Config)
			},
			"bedrock": func(a *awsstack.AWS) (callscribe.Tagger, func(), error) {
				return bedrock.NewTagger(bedrockClient(a)), nil, nil
			},
		},
	}
}
