// Package insight is the derived-job worker's provider table on AWS: the
// built-in summarizer and tagger, Amazon Bedrock (SUMMARIZER/TAGGER=bedrock)
// and the OpenAI-compatible providers. Only the derived-job worker imports it,
// so no other function links the Bedrock SDK or the built-in lexicon.
package insight

import (
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"

	"github.com/callscribe/callscribe/shared/awsstack"
	"github.com/callscribe/callscribe/shared/bedrock"
	"github.com/callscribe/callscribe/shared/callscribe"
	"github.com/callscribe/callscribe/shared/commonproviders"
	"github.com/callscribe/callscribe/shared/engines"
)

// Providers is the table. The Bedrock summarizer and tagger share one client
// when both are selected.
func Providers() engines.Table[*awsstack.AWS] {
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
				return commonproviders.BuiltinSummarizer(a.Config)
			},
			"openai": func(a *awsstack.AWS) (callscribe.Summarizer, func(), error) {
				return commonproviders.OpenAISummarizer(a.Config)
			},
			"bedrock": func(a *awsstack.AWS) (callscribe.Summarizer, func(), error) {
				return bedrock.NewSummarizer(bedrockClient(a)), nil, nil
			},
		},
		Taggers: map[string]engines.Factory[*awsstack.AWS, callscribe.Tagger]{
			"builtin": func(a *awsstack.AWS) (callscribe.Tagger, func(), error) {
				return commonproviders.BuiltinTagger(a.Config)
			},
			"openai": func(a *awsstack.AWS) (callscribe.Tagger, func(), error) {
				return commonproviders.OpenAITagger(a.Config)
			},
			"bedrock": func(a *awsstack.AWS) (callscribe.Tagger, func(), error) {
				return bedrock.NewTagger(bedrockClient(a)), nil, nil
			},
		},
	}
}
