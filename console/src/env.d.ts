/** esbuild bundles the style sheet the entry imports into its own file. */
declare module '*.css';
