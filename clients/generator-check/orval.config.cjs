module.exports = {
  wpcrm: {
    input: { target: './generated/openapi.json' },
    output: {
      target: './generated/orval/client.ts',
      client: 'fetch',
      mode: 'single',
      baseUrl: 'http://127.0.0.1:3000',
    },
  },
};
