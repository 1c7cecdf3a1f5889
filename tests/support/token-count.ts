// Counts what a tool definition costs the model: o200k tokens of its JSON (name, description,
// parameter schema), the way providers receive function definitions.
import { encode } from "gpt-tokenizer/encoding/o200k_base";

export interface ToolDefinitionLike {
	readonly name: string;
	readonly description?: string;
	readonly parameters: unknown;
}

export function countTokens(text: string): number {
	return encode(text).length;
}

export function toolDefinitionTokens(tool: ToolDefinitionLike): number {
	return countTokens(
		JSON.stringify({ name: tool.name, description: tool.description ?? "", parameters: tool.parameters }),
	);
}
