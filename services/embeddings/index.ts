export { EmbeddingCache, textKey } from './cache';
export { EmbeddingsClient, EmbeddingsError, type EmbedProgress } from './client';
export { embeddingsConfigSection, resolveEmbeddingsEndpoint, type EmbeddingsConfigSection, type EmbeddingsEndpoint } from './config';
